import type { Kysely } from 'kysely';
import { deleteTokensOfUser } from '../db/tokens.js';
import type { TenantDatabase } from '../db/types.js';
import { findUserByEmail, findUserById, setUserActive, updateUserPasswordHash, updateUserProfile, type ProfileChanges, type UserRow } from '../db/users.js';
import { issueToken, type IssuedToken } from './access-tokens.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { toDbTimestamp } from './time.js';
import { UserConflictError } from './users.js';

type TenantDb = Kysely<TenantDatabase>;

// A changed password or a deactivated account ends every session at once (api.md 5.3):
// the change and the deletion of the user's tokens commit together or not at all.

export async function changePassword(db: TenantDb, userId: number, newPassword: string): Promise<number> {
  const hash = await hashPassword(newPassword);
  return db.transaction().execute(async (trx) => {
    await updateUserPasswordHash(trx, userId, hash, toDbTimestamp(new Date()));
    return deleteTokensOfUser(trx, userId);
  });
}

export async function deactivateUser(db: TenantDb, userId: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await setUserActive(trx, userId, false, toDbTimestamp(new Date()));
    return deleteTokensOfUser(trx, userId);
  });
}

export async function activateUser(db: TenantDb, userId: number): Promise<void> {
  await setUserActive(db, userId, true, toDbTimestamp(new Date()));
}

/** Profile fields as the API takes them (booleans as booleans). */
export type ProfileInput = Omit<ProfileChanges, 'is_vegetarian' | 'can_swimm'> & {
  is_vegetarian?: boolean;
  can_swimm?: boolean;
};

/** Changes the caller's own profile; an e-mail address taken by another user is a UserConflictError. */
export async function updateProfile(db: TenantDb, userId: number, input: ProfileInput): Promise<UserRow> {
  if (input.email !== undefined) {
    const owner = await findUserByEmail(db, input.email);
    if (owner && owner.id !== userId) throw new UserConflictError({ email: ['The email has already been taken.'] });
  }
  const { is_vegetarian, can_swimm, ...rest } = input;
  const changes: ProfileChanges = { ...rest };
  if (is_vegetarian !== undefined) changes.is_vegetarian = is_vegetarian ? 1 : 0;
  if (can_swimm !== undefined) changes.can_swimm = can_swimm ? 1 : 0;
  return updateUserProfile(db, userId, changes, toDbTimestamp(new Date()));
}

/**
 * The caller changes their own password: checked against the current one, read here (the token
 * lookup never reads password hashes), null when it does not match; then every token of the user
 * is deleted and one new login token issued, in one transaction.
 */
export async function changeOwnPassword(
  db: TenantDb,
  userId: number,
  currentPassword: string,
  newPassword: string,
  tokenPrefix: string,
): Promise<IssuedToken | null> {
  const user = await findUserById(db, userId);
  if (!user) return null;
  const check = await verifyPassword(user.password, currentPassword);
  if (!check.valid) return null;
  const hash = await hashPassword(newPassword);
  return db.transaction().execute(async (trx) => {
    const now = new Date();
    await updateUserPasswordHash(trx, user.id, hash, toDbTimestamp(now));
    await deleteTokensOfUser(trx, user.id);
    return issueToken(trx, user.id, { tokenPrefix, now });
  });
}
