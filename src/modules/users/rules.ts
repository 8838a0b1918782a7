import type { TenantDb, UserRow } from '../../db/types.js';
import { fieldMessages, type FieldErrors } from '../../errors.js';
import { toDbTimestamp } from '../../lib/time.js';
import { hashPassword } from '../../lib/passwords/passwords.js';
import {
  findUserByEmail,
  findUserById,
  findUserByUsername,
  insertUser,
  newUserRow,
  rehashPassword,
  updateUserProfile,
  changesAnything,
  type ProfileChanges,
} from './queries.js';
import { noteCreated, noteUpdated, transact } from '../../recording/recorder.js';
import { personChanges } from '../../recording/person-changes.js';
import { toApiUser, type ApiUser, type NewUser, type ProfileUpdate } from './schemas.js';

// Every change here reaches the caches of every instance through the database itself
// (db/invalidation). Password changes and deactivation, which end sessions, are the auth
// module's (auth/accounts.ts).

/** A username or e-mail address that another user has: the field -> message of each. */
/** A person can sign in with a username and a password (a deactivated user keeps it, and still cannot). */
export const hasLogin = (row: Pick<UserRow, 'username' | 'password'>): boolean => row.username !== null && row.password !== null;

export class UserConflictError extends Error {
  override name = 'UserConflictError';
  constructor(readonly fieldErrors: FieldErrors) {
    super(Object.values(fieldErrors).flat().join(' '));
  }
}

/** A user as a login checks them. */
export interface LoginUser extends Pick<UserRow, 'id' | 'firstname' | 'lastname' | 'updated_at'> {
  username: string;
  email: string;
  password: string;
  active: boolean;
}

/** The user who may try to log in with this username; a person without a password is none. */
export async function findLoginUser(db: TenantDb, username: string): Promise<LoginUser | null> {
  const row = await findUserByUsername(db, username);
  if (!row || row.username === null || row.password === null) return null;
  return { ...row, username: row.username, email: row.email ?? '', password: row.password, active: Boolean(row.is_active) };
}

/** The user with this username as GET /user shows them, or null. */
export async function findUserRecord(db: TenantDb, username: string): Promise<ApiUser | null> {
  const row = await findUserByUsername(db, username);
  return row ? toApiUser(row) : null;
}

/** A new hash for the same password (a rehash after login): the profile's updated_at stays. */
export async function replacePasswordHash(db: TenantDb, user: Pick<UserRow, 'id' | 'updated_at'>, hash: string): Promise<void> {
  await rehashPassword(db, user.id, hash);
}

/** Creates a user from validated input; a taken username or e-mail is a UserConflictError. */
export async function createUser(db: TenantDb, input: NewUser, now = new Date()): Promise<ApiUser> {
  const password = await hashPassword(input.password);
  // The command line's: its change record names no actor.
  return transact(db, null, async (trx) => {
    const conflicts: FieldErrors = {};
    if (await findUserByUsername(trx, input.username)) conflicts.username = [fieldMessages.taken('username')];
    if (await findUserByEmail(trx, input.email)) conflicts.email = [fieldMessages.taken('email')];
    if (Object.keys(conflicts).length > 0) throw new UserConflictError(conflicts);
    const row = await insertUser(trx, newUserRow(input, { username: input.username, email: input.email, password }, toDbTimestamp(now)));
    noteCreated(trx, 'person', Number(row.id), { personId: Number(row.id) });
    return toApiUser(row);
  });
}

/** Changes the caller's own profile; an e-mail address taken by another user is a UserConflictError. */
/**
 * Runs inside the transaction of a profile change that changed something, with the row before and
 * after it (the mail module sends the notice of a changed address from here, in the same commit).
 */
export type AfterProfileChange = (trx: TenantDb, before: UserRow, after: UserRow) => Promise<unknown>;

export async function updateProfile(db: TenantDb, userId: number, input: ProfileUpdate, afterChange?: AfterProfileChange): Promise<ApiUser> {
  if (input.email !== undefined) {
    const owner = await findUserByEmail(db, input.email);
    if (owner && owner.id !== userId) throw new UserConflictError({ email: [fieldMessages.taken('email')] });
  }
  const { is_vegetarian, can_swimm, ...rest } = input;
  const changes: ProfileChanges = { ...rest };
  if (is_vegetarian !== undefined) changes.is_vegetarian = is_vegetarian ? 1 : 0;
  if (can_swimm !== undefined) changes.can_swimm = can_swimm ? 1 : 0;
  return transact(db, userId, async (trx) => {
    const before = await findUserById(trx, userId);
    if (before && !changesAnything(before, changes)) return toApiUser(before);
    const after = await updateUserProfile(trx, userId, changes, toDbTimestamp(new Date()));
    noteUpdated(trx, 'person', userId, before ? personChanges(before, after) : {}, { personId: userId });
    if (before && afterChange) await afterChange(trx, before, after);
    return toApiUser(after);
  });
}

// What other modules use of this module's queries: named here, so that its tables stay its own.
export {
  findUserById,
  setUserActive,
  updateUserPasswordHash,
  changesAnything,
  findUserByEmail,
  findUserByUsername,
  insertUser,
  insertUsers,
  newUserRow,
  updateUserProfile,
  type ProfileChanges,
} from './queries.js';
