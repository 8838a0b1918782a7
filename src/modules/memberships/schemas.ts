import Type, { type Static } from 'typebox';
import { PagingQuery } from '../../http/paging.js';
import { Timestamp } from '../../http/schemas.js';
import { toApiTimestamp } from '../../lib/time.js';
import { fieldMessages, type FieldErrors } from '../../errors.js';
import { checkItems, idOfItem, MOST_ITEMS, objectItemCheck, valueItemCheck } from '../../http/bulk.js';
import { compileObjectValidator, StoredText, type Validation } from '../../lib/validation.js';
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

/** A membership with its group's name after `end_on` (a person's page, the members table). */
export const NamedMembershipSchema = Type.Object({
  ...Type.Pick(MembershipSchema, ['id', 'person_id', 'group_id', 'role_type', 'label', 'start_on', 'end_on']).properties,
  group_name: Type.String(),
  ...Type.Pick(MembershipSchema, ['created_at', 'updated_at']).properties,
});
export type ApiNamedMembership = Static<typeof NamedMembershipSchema>;

export const toApiNamedMembership = (row: MembershipRow & { group_name: string }): ApiNamedMembership => {
  const { created_at, updated_at, ...rest } = toApiMembership(row);
  return { ...rest, group_name: row.group_name, created_at, updated_at };
};

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

/** POST /memberships, the bulk form: the same membership for several people. */
export const BulkMembershipSchema = Type.Object({
  person_ids: Type.Array(Id, { minItems: 1, maxItems: MOST_ITEMS, uniqueItems: true, description: 'Added in this order' }),
  ...MembershipGrantSchema.properties,
});
export type BulkMembership = Static<typeof BulkMembershipSchema>;

/** PATCH /memberships: several memberships' label or dates at once. */
export const MembershipChangeListSchema = Type.Object({
  memberships: Type.Array(Type.Object({ id: Id, ...MembershipUpdateSchema.properties }), { minItems: 1, maxItems: MOST_ITEMS }),
});
export type MembershipChangeList = Static<typeof MembershipChangeListSchema>;

/** Fixed at creation: end a membership and add another instead. */
export const FIXED_FIELDS = ['person_id', 'group_id', 'role_type'];

const checkSingle = compileObjectValidator<NewMembership>(NewMembershipSchema);
const checkGrant = compileObjectValidator<MembershipGrant>(MembershipGrantSchema);
const checkPersonId = valueItemCheck(Id);
const checkChangeFields = objectItemCheck(MembershipChangeListSchema.properties.memberships.items);
const asObject = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

/** The body of POST /memberships: the single form (`person_id`) or, when it names `person_ids`, the bulk form. */
export function checkMembershipBody(body: unknown): Validation<NewMembership | BulkMembership> {
  const given = asObject(body);
  if (!('person_ids' in given)) return checkSingle(body);
  if ('person_id' in given) return { ok: false, fieldErrors: { person_ids: [fieldMessages.prohibits('person_ids', 'person_id')] } };
  const ids = checkItems(given, 'person_ids', (id) => id, checkPersonId);
  const rest = checkGrant(given);
  const fieldErrors = { ...ids.problems, ...(rest.ok ? {} : rest.fieldErrors) };
  if (Object.keys(fieldErrors).length > 0 || !rest.ok) return { ok: false, fieldErrors };
  return { ok: true, value: { person_ids: ids.items as number[], ...rest.value } };
}

/** The body of PATCH /memberships: each item's label and dates; person, group and role type are fixed. */
export function checkMembershipChangesBody(body: unknown): Validation<MembershipChangeList> {
  const checkItem = (item: unknown, key: string): FieldErrors => {
    const found = checkChangeFields(item, key);
    for (const field of FIXED_FIELDS) {
      if (typeof item === 'object' && item !== null && Object.hasOwn(item, field)) found[`${key}.${field}`] = [fieldMessages.prohibited(`${key}.${field}`)];
    }
    return found;
  };
  const items = checkItems(asObject(body), 'memberships', idOfItem, checkItem);
  if (Object.keys(items.problems).length > 0) return { ok: false, fieldErrors: items.problems };
  return { ok: true, value: { memberships: items.items as MembershipChangeList['memberships'] } };
}
