import Type, { type Static } from 'typebox';

/** The caller's tenant: enough for a client to show dates in its time zone. */
export const TenantSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  timezone: Type.String({ description: 'IANA time zone name; "today" for memberships and events is a date there' }),
});
export type TenantRecord = Static<typeof TenantSchema>;
