import Type, { type Static } from 'typebox';
import { PagingQuery } from '../../http/paging.js';
import { Timestamp } from '../../http/schemas.js';
import { toApiTimestamp } from '../../lib/time.js';
import { StoredText } from '../../lib/validation.js';
import type { MembershipRow } from '../../db/types.js';

/** YYYY-MM-DD, a real date. */
export const DaySchema = Type.String({ format: 'date', maxLength: 10 });
const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Label = Type.Union([StoredText({ maxLength: 255 }), Type.Null()]);
const NullableDay = Type.Union([DaySchema, Type.Null()]);

/** A membership, fields in this order. */
export const MembershipSchema = Type.Object({
  id: Type.Integer(),
  person_id: Type.Integer(),
  group_id: Type.Integer(),
  role_type: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  start_on: Type.String({ description: 'YYYY-MM-DD' }),
  end_on: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ApiMembership = Static<typeof MembershipSchema>;

/** An item of GET /groups/{id}/memberships: the membership and, after updated_at, its person. */
export const GroupMembershipSchema = Type.Object({
  ...MembershipSchema.properties,
  person: Type.Object({ id: Type.Integer(), firstname: Type.String(), lastname: Type.String() }),
});

/** The membership a new person starts with (POST /people), and POST /memberships without person_id. */
export const MembershipGrantSchema = Type.Object({
  group_id: Id,
  role_type: StoredText({ minLength: 1, maxLength: 64 }),
  start_on: Type.Optional(DaySchema),
  end_on: Type.Optional(NullableDay),
  label: Type.Optional(Label),
});
export type MembershipGrant = Static<typeof MembershipGrantSchema>;

export const NewMembershipSchema = Type.Object({ person_id: Id, ...MembershipGrantSchema.properties });
export type NewMembership = Static<typeof NewMembershipSchema>;

export const MembershipUpdateSchema = Type.Object({
  label: Type.Optional(Label),
  start_on: Type.Optional(DaySchema),
  end_on: Type.Optional(NullableDay),
});
export type MembershipUpdate = Static<typeof MembershipUpdateSchema>;

export const GroupMembershipsQuery = Type.Object(
  { active_on: Type.Optional(DaySchema), all: Type.Optional(Type.Boolean()), role_type: Type.Optional(StoredText({ maxLength: 64 })), ...PagingQuery },
  { additionalProperties: false },
);
export const PersonMembershipsQuery = Type.Object({ active_on: Type.Optional(DaySchema), ...PagingQuery }, { additionalProperties: false });

export const toApiMembership = (row: MembershipRow): ApiMembership => ({
  id: Number(row.id),
  person_id: Number(row.person_id),
  group_id: Number(row.group_id),
  role_type: row.role_type,
  label: row.label,
  start_on: row.start_on,
  end_on: row.end_on,
  created_at: toApiTimestamp(row.created_at),
  updated_at: toApiTimestamp(row.updated_at),
});
