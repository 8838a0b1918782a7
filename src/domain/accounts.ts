import type { Kysely } from 'kysely';
import { deleteTokensOfUser } from '../db/tokens.js';
import type { TenantDatabase } from '../db/types.js';
import { setUserActive, updateUserPasswordHash } from '../db/users.js';
import { hashPassword } from './passwords.js';
import { toDbTimestamp } from './time.js';

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
