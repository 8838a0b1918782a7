import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../db/types.js';
import { updateUserPasswordHash, type UserRow } from '../db/users.js';
import { issueToken, type IssuedToken } from './access-tokens.js';
import { hashPassword, spendPasswordCheck, verifyPassword } from './passwords.js';
import { findUserByUsername } from '../db/users.js';
import { isActive } from './users.js';

type TenantDb = Kysely<TenantDatabase>;

export interface LoginResult {
  user: UserRow;
  issued: IssuedToken;
}

/**
 * Checks a username and password and issues a login token, or returns null. Unknown users,
 * wrong passwords and deactivated users all cost one password check, so none is faster to tell apart.
 */
export async function login(
  db: TenantDb,
  username: string,
  password: string,
  options: { tokenPrefix: string; now?: Date },
): Promise<LoginResult | null> {
  const user = await findUserByUsername(db, username);
  if (!user) {
    await spendPasswordCheck(password);
    return null;
  }
  const check = await verifyPassword(user.password, password);
  if (!check.valid || !isActive(user)) return null;
  const now = options.now ?? new Date();
  if (check.needsRehash) {
    // Imported bcrypt hashes become argon2id on the first successful login.
    await updateUserPasswordHash(db, user.id, await hashPassword(password), user.updated_at);
  }
  const issued = await issueToken(db, user.id, { tokenPrefix: options.tokenPrefix, now });
  return { user, issued };
}
