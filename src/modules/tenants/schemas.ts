import Type, { type Static } from 'typebox';
import { StoredText } from '../../lib/validation.js';

/** The languages a tenant's mails are written in. */
export const LOCALES = ['de', 'en', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];
/** A new tenant's language, unless the operator names another. */
export const DEFAULT_LOCALE: Locale = 'en';

const LocaleSchema = Type.Union([Type.Literal('de'), Type.Literal('en'), Type.Literal('fr')], {
  description: 'The language of the mails the service writes for the tenant: de, en or fr',
});

/** The caller's tenant: enough for a client to show dates in its time zone. */
export const TenantSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  timezone: Type.String({ description: 'IANA time zone name; "today" for memberships and events is a date there' }),
  locale: LocaleSchema,
});
export type TenantRecord = Static<typeof TenantSchema>;

/** PATCH /tenant: the settings an administrator changes; each optional. */
export const TenantUpdateSchema = Type.Object({
  name: Type.Optional(StoredText({ minLength: 1, maxLength: 255 })),
  timezone: Type.Optional(StoredText({ maxLength: 64, description: 'IANA time zone name, e.g. Europe/Zurich' })),
  locale: Type.Optional(LocaleSchema),
});
export type TenantUpdate = Static<typeof TenantUpdateSchema>;
