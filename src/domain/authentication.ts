import type { Kysely } from 'kysely';
import { findTokenWithUser, touchTokenLastUsed } from '../db/tokens.js';
import type { TenantDatabase } from '../db/types.js';
import { updateUserPasswordHash, type UserRow } from '../db/users.js';
import { issueToken, type IssuedToken } from './access-tokens.js';
import { hashPassword, spendPasswordCheck, verifyPassword } from './passwords.js';
import { toApiTimestamp, toDbTimestamp } from './time.js';
import { hashTokenSecret, parseAbilities, tokenHashesMatch, type BearerToken } from './tokens.js';
import { findUserByUsername } from '../db/users.js';
import { isActive } from './users.js';

type TenantDb = Kysely<TenantDatabase>;

export interface AuthenticatedToken {
  user: UserRow;
  tokenId: number;
  abilities: string[];
  /** Database form, as read with the token (see recordTokenUse). */
  lastUsedAt: string | null;
}

/**
 * The user a bearer token belongs to, or null when the token is unknown, does not match,
 * has expired or belongs to a deactivated user. Callers decide what null means (401).
 */
export async function authenticateToken(db: TenantDb, bearer: BearerToken, now: Date): Promise<AuthenticatedToken | null> {
  const found = await findTokenWithUser(db, bearer.id);
  if (!found) return null;
  if (!tokenHashesMatch(found.token.token, hashTokenSecret(bearer.secret))) return null;
  if (!isActive(found.user)) return null;
  if (found.token.expires_at !== null && Date.parse(toApiTimestamp(found.token.expires_at)) <= now.getTime()) return null;
  return {
    user: found.user,
    tokenId: found.token.id,
    abilities: parseAbilities(found.token.abilities),
    lastUsedAt: found.token.last_used_at,
  };
}

export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** Records that a token was used; writes at most once per LAST_USED_WRITE_INTERVAL_MS per token. */
export function recordTokenUse(db: TenantDb, tokenId: number, now: Date): Promise<void> {
  return touchTokenLastUsed(
    db,
    tokenId,
    toDbTimestamp(now),
    toDbTimestamp(new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS)),
  );
}

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
