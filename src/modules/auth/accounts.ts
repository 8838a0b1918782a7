import type { TenantDb } from '../../db/types.js';
import { hashPassword, verifyPassword } from '../../lib/passwords/passwords.js';
import { toDbTimestamp } from '../../lib/time.js';
import { HIDDEN_PASSWORD } from '../../recording/person-changes.js';
import { noteUpdated, transact } from '../../recording/recorder.js';
import { issueToken, revokeAllTokens } from '../tokens/rules.js';
import type { IssuedToken } from '../tokens/schemas.js';
import { findUserById, setUserActive, updateUserPasswordHash } from '../users/rules.js';
import type { SessionKind } from '../../http/caller.js';

// What ends an account's sessions: a changed password or a deactivated account ends every
// session at once. The change and the deletion of the user's tokens commit together or not at all.

/** Sets a user's password (an operator's reset) and revokes all their tokens; returns how many. */
export async function changePassword(db: TenantDb, userId: number, newPassword: string): Promise<number> {
  const hash = await hashPassword(newPassword);
  return transact(db, null, async (trx) => {
    await updateUserPasswordHash(trx, userId, hash, toDbTimestamp(new Date()));
    noteUpdated(trx, 'person', userId, { password: HIDDEN_PASSWORD }, { personId: userId });
    return revokeAllTokens(trx, userId);
  });
}

/**
 * Stops a user from logging in and revokes all their tokens; returns how many. `alsoEnd` runs in
 * the same transaction: the mailed reset and invitation links die with the account (accounts module).
 */
export async function deactivateUser(db: TenantDb, userId: number, alsoEnd?: (trx: TenantDb) => Promise<unknown>): Promise<number> {
  return transact(db, null, async (trx) => {
    await setActive(trx, userId, false);
    await alsoEnd?.(trx);
    return revokeAllTokens(trx, userId);
  });
}

export async function activateUser(db: TenantDb, userId: number): Promise<void> {
  await transact(db, null, (trx) => setActive(trx, userId, true));
}

async function setActive(db: TenantDb, userId: number, active: boolean): Promise<void> {
  await setUserActive(db, userId, active, toDbTimestamp(new Date()));
  // Recorded as an update (its updated_at moved, and a sync tool reads it again), without the
  // flag itself, which the API never returns.
  noteUpdated(db, 'person', userId, {}, { personId: userId });
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
  /** Changed through a browser's session: the new token is a session of the same kind, so that device stays signed in. */
  session?: SessionKind,
): Promise<IssuedToken | null> {
  const user = await findUserById(db, userId);
  if (!user || user.password === null) return null;
  const check = await verifyPassword(user.password, currentPassword);
  if (!check.valid) return null;
  const hash = await hashPassword(newPassword);
  return transact(db, user.id, async (trx) => {
    const now = new Date();
    await updateUserPasswordHash(trx, user.id, hash, toDbTimestamp(now));
    noteUpdated(trx, 'person', user.id, { password: HIDDEN_PASSWORD }, { personId: user.id });
    await revokeAllTokens(trx, user.id);
    return issueToken(trx, user.id, { tokenPrefix, now, ...(session ? { session } : {}) });
  });
}
