import type { Selectable } from 'kysely';
import type { UsersTable } from '../db/types.js';
import type { FieldChanges } from './recorder.js';

type PersonRow = Selectable<UsersTable>;

/**
 * A person's fields that their change records show, as the API shows them (booleans as booleans).
 * Not the account's active flag, which the API never returns.
 */
const RECORDED = [
  'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile',
  'street', 'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'birthday',
] as const;
const BOOLEANS = new Set<string>(['is_vegetarian', 'can_swimm']);

/** A password is never shown, not even hashed: only that it changed. */
export const HIDDEN_PASSWORD: [string, string] = ['[hidden]', '[hidden]'];

const shown = (field: string, value: unknown) => (value === null || value === undefined ? null : BOOLEANS.has(field) ? Boolean(value) : value);

/** `{field: [old, new]}` of what changed between two versions of a person's row. */
export function personChanges(before: PersonRow, after: PersonRow): FieldChanges {
  const changes: FieldChanges = {};
  for (const field of RECORDED) {
    const [old, now] = [shown(field, before[field]), shown(field, after[field])];
    if (old !== now) changes[field] = [old, now];
  }
  if (before.password !== after.password) changes.password = HIDDEN_PASSWORD;
  return changes;
}
