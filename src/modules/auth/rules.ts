import type { TenantDb } from '../../db/types.js';
import type { SessionKind } from '../../http/caller.js';
import { issueToken } from '../tokens/rules.js';
import type { IssuedToken } from '../tokens/schemas.js';
import { findLoginUser, replacePasswordHash, type LoginUser } from '../users/rules.js';
import { hashPassword, spendPasswordCheck, verifyPassword } from '../../lib/passwords/passwords.js';

export interface LoginResult {
  user: LoginUser;
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
  /** `session`: the token is a browser's session (POST /session) rather than an API client's. */
  options: { tokenPrefix: string; now?: Date; session?: SessionKind },
): Promise<LoginResult | null> {
  const user = await findLoginUser(db, username);
  if (!user) {
    await spendPasswordCheck(password);
    return null;
  }
  const check = await verifyPassword(user.password, password);
  if (!check.valid || !user.active) return null;
  const now = options.now ?? new Date();
  if (check.needsRehash) {
    // Imported bcrypt hashes become argon2id on the first successful login.
    await replacePasswordHash(db, user, await hashPassword(password));
  }
  const issued = await issueToken(db, user.id, { tokenPrefix: options.tokenPrefix, now, ...(options.session ? { session: options.session } : {}) });
  return { user, issued };
}
