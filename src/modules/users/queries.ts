import { sql, type Insertable } from 'kysely';
import { onPostgres } from '../../db/dialect.js';
import { idsInListedOrder, statementChunks } from '../../db/statement-chunks.js';
import type { UsersTable, TenantDb, UserRow } from '../../db/types.js';
import { sortKey } from '../../lib/sort-key.js';
import { containsNul, lowerAscii } from '../../lib/validation.js';


function lowerColumn(db: TenantDb, column: 'username' | 'email') {
  // Mirrors the expression of the unique indexes, so the lookup can use them.
  return onPostgres(db)
    ? sql<string>`lower(${sql.ref(column)} collate "C")`
    : sql<string>`lower(${sql.ref(column)})`;
}

// A name or address with U+0000 was never stored (see StoredText), and PostgreSQL cannot even
// compare one: no query, no user.
export function findUserByUsername(db: TenantDb, username: string): Promise<UserRow | undefined> {
  if (containsNul(username)) return Promise.resolve(undefined);
  return db
    .selectFrom('users')
    .selectAll()
    .where(lowerColumn(db, 'username'), '=', lowerAscii(username))
    .executeTakeFirst();
}

export function findUserByEmail(db: TenantDb, email: string): Promise<UserRow | undefined> {
  if (containsNul(email)) return Promise.resolve(undefined);
  return db.selectFrom('users').selectAll().where(lowerColumn(db, 'email'), '=', lowerAscii(email)).executeTakeFirst();
}

export function findUserById(db: TenantDb, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A new row; the name sort keys and the version are the table's business. */
export type NewUserRow = Omit<Insertable<UsersTable>, 'lastname_key' | 'firstname_key' | 'version'>;

// Every write of a row below bumps its version (the person's ETag) and keeps the sort keys of
// the names it writes.
const nextVersion = sql<number>`version + 1`;

/** The profile fields of a new person as its creators receive them (a new user, POST /people, a CSV row). */
export interface NewProfile {
  firstname: string;
  lastname: string;
  gender_id?: number | null;
  type_id?: number | null;
  phonenumber?: string | null;
  phonenumber_mobile?: string | null;
  street?: string | null;
  housenumber?: string | null;
  zip?: string | null;
  city?: string | null;
  is_vegetarian?: boolean;
  can_swimm?: boolean;
  birthday?: string | null;
}

/** A new, active person's row: fields not given are null, booleans false, as the table stores them. */
export function newUserRow(
  profile: NewProfile,
  login: { username: string | null; email: string | null; password: string | null },
  timestamp: string,
): NewUserRow {
  return {
    ...login,
    firstname: profile.firstname,
    lastname: profile.lastname,
    gender_id: profile.gender_id ?? null,
    type_id: profile.type_id ?? null,
    phonenumber: profile.phonenumber ?? null,
    phonenumber_mobile: profile.phonenumber_mobile ?? null,
    street: profile.street ?? null,
    housenumber: profile.housenumber ?? null,
    zip: profile.zip ?? null,
    city: profile.city ?? null,
    is_vegetarian: profile.is_vegetarian ? 1 : 0,
    can_swimm: profile.can_swimm ? 1 : 0,
    birthday: profile.birthday ?? null,
    is_active: 1,
    created_at: timestamp,
    updated_at: timestamp,
  };
}

export async function insertUser(db: TenantDb, user: NewUserRow): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({ ...user, lastname_key: sortKey(user.lastname), firstname_key: sortKey(user.firstname) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Many new people (a CSV import) in a few statements: their ids, in the order of `users`. */
export async function insertUsers(db: TenantDb, users: readonly NewUserRow[]): Promise<number[]> {
  const ids: number[] = [];
  for (const part of statementChunks(users)) {
    const rows = part.map((user) => ({ ...user, lastname_key: sortKey(user.lastname), firstname_key: sortKey(user.firstname) }));
    ids.push(...idsInListedOrder(await db.insertInto('users').values(rows).returning('id').execute()));
  }
  return ids;
}

/** The same password in a newer hash: not a change of the person (no version, no record). */
export async function rehashPassword(db: TenantDb, id: number, hash: string): Promise<void> {
  await db.updateTable('users').set({ password: hash }).where('id', '=', id).execute();
}

export async function updateUserPasswordHash(db: TenantDb, id: number, hash: string, updatedAt: string): Promise<void> {
  await db.updateTable('users').set({ password: hash, updated_at: updatedAt, version: nextVersion }).where('id', '=', id).execute();
}

export async function setUserActive(db: TenantDb, id: number, active: boolean, now: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ is_active: active ? 1 : 0, updated_at: now, version: nextVersion })
    .where('id', '=', id)
    .execute();
}

export type ProfileChanges = Partial<
  Pick<
    UserRow,
    | 'username' | 'email' | 'firstname' | 'lastname' | 'gender_id' | 'type_id' | 'phonenumber' | 'phonenumber_mobile'
    | 'street' | 'housenumber' | 'zip' | 'city' | 'is_vegetarian' | 'can_swimm' | 'birthday' | 'password'
  >
>;

/**
 * Whether `changes` would change the row: a write that sets every field to what it holds is no
 * change (as Laravel's update of a model with nothing dirty): no new version, no `updated_at`, no
 * change record. A new password hash always differs.
 */
export const changesAnything = (current: UserRow, changes: ProfileChanges): boolean =>
  Object.entries(changes).some(([field, value]) => {
    if (value === undefined) return false;
    const stored: unknown = current[field as keyof ProfileChanges];
    // Flags are written 0/1 and read back as 0/1 (SQLite) or false/true (PostgreSQL's boolean).
    return field === 'is_vegetarian' || field === 'can_swimm' ? Boolean(stored) !== Boolean(value) : stored !== value;
  });

export async function updateUserProfile(db: TenantDb, id: number, changes: ProfileChanges, updatedAt: string): Promise<UserRow> {
  const keys = {
    ...(changes.lastname !== undefined ? { lastname_key: sortKey(changes.lastname) } : {}),
    ...(changes.firstname !== undefined ? { firstname_key: sortKey(changes.firstname) } : {}),
  };
  return db
    .updateTable('users')
    .set({ ...changes, ...keys, updated_at: updatedAt, version: nextVersion })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
