import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { findTokenWithUser, findTokenWithUserNow, type TokenWithUser } from '../db/tokens.js';
import type { TenantDatabase } from '../db/types.js';
import type { UserRow } from '../db/users.js';
import { toApiTimestamp } from './time.js';
import { hashTokenSecret, parseAbilities, tokenHashesMatch, type BearerToken } from './tokens.js';
import { isActive } from './users.js';

export interface AuthenticatedToken {
  user: UserRow;
  tokenId: number;
  abilities: string[];
  /** When last_used_at was last written (ms since epoch), or null if never. */
  lastUsedAtMs: number | null;
}

interface CachedToken {
  tokenHash: string;
  user: UserRow;
  abilities: string[];
  expiresAtMs: number | null;
  lastUsedAtMs: number | null;
}

export interface TokenVerifier {
  /**
   * The user a bearer token belongs to, or null when the token is unknown, does not match, has
   * expired or belongs to a deactivated user. Callers decide what null means (401).
   */
  verify(tenant: string, db: Kysely<TenantDatabase>, bearer: BearerToken, now: number): Promise<AuthenticatedToken | null>;
  /**
   * The same answer without waiting: from memory, or from storage that answers synchronously
   * (SQLite). Undefined when only verify() can tell.
   */
  verifyNow(tenant: string, db: Kysely<TenantDatabase>, bearer: BearerToken, now: number): AuthenticatedToken | null | undefined;
  /** After this process revoked a token or changed a user: stop using what it remembers. */
  forgetToken(tenant: string, tokenId: number): void;
  forgetUser(tenant: string, userId: number): void;
  /** After last_used_at was written for a token. */
  markUsed(tenant: string, tokenId: number, atMs: number): void;
}

export interface TokenVerifierOptions {
  /**
   * How long a token row read from the database is reused. A revocation made elsewhere (another
   * instance, the CLI) takes effect within this time; changes made by this process at once.
   */
  ttlMs?: number;
  maxEntries?: number;
}

const msOrNull = (value: string | null) => (value === null ? null : Date.parse(toApiTimestamp(value)));

/**
 * Token verification with a short-lived memory of token rows, so a busy token costs one query
 * per `ttlMs` instead of one per request. The secret is still checked on every request: only the
 * stored hash is remembered, and it is compared in constant time.
 */
export function createTokenVerifier({ ttlMs = 500, maxEntries = 50_000 }: TokenVerifierOptions = {}): TokenVerifier {
  const key = (tenant: string, tokenId: number) => `${tenant}\u0000${tokenId}`;
  const userKey = (tenant: string, userId: number) => `${tenant}\u0000${userId}`;
  const tokensOfUser = new Map<string, Set<string>>();

  const remember = (cacheKey: string, tenant: string, found: TokenWithUser): CachedToken => {
    const owner = userKey(tenant, found.user.id);
    let keys = tokensOfUser.get(owner);
    if (!keys) tokensOfUser.set(owner, (keys = new Set()));
    keys.add(cacheKey);
    return {
      tokenHash: found.token.token,
      user: found.user,
      abilities: parseAbilities(found.token.abilities),
      expiresAtMs: msOrNull(found.token.expires_at),
      lastUsedAtMs: msOrNull(found.token.last_used_at),
    };
  };

  const cache = new LRUCache<string, CachedToken, { db: Kysely<TenantDatabase>; tenant: string; tokenId: number }>({
    max: maxEntries,
    ttl: ttlMs,
    // Concurrent requests with one token share one query.
    fetchMethod: async (cacheKey, _stale, { context }) => {
      const found = await findTokenWithUser(context.db, context.tokenId);
      return found ? remember(cacheKey, context.tenant, found) : undefined;
    },
    dispose: (entry, cacheKey) => {
      const tenant = cacheKey.slice(0, cacheKey.indexOf('\u0000'));
      const owner = userKey(tenant, entry.user.id);
      const keys = tokensOfUser.get(owner);
      keys?.delete(cacheKey);
      if (keys?.size === 0) tokensOfUser.delete(owner);
    },
  });

  const check = (entry: CachedToken | undefined, bearer: BearerToken, now: number): AuthenticatedToken | null => {
    if (!entry) return null;
    if (!tokenHashesMatch(entry.tokenHash, hashTokenSecret(bearer.secret))) return null;
    if (!isActive(entry.user)) return null;
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= now) return null;
    return { user: entry.user, tokenId: bearer.id, abilities: entry.abilities, lastUsedAtMs: entry.lastUsedAtMs };
  };

  // Expired rows are dropped when read; the rest are swept here, so memory follows the tokens in
  // use rather than every token seen since start.
  setInterval(() => cache.purgeStale(), Math.max(1000, ttlMs * 4)).unref();

  return {
    async verify(tenant, db, bearer, now) {
      return check(await cache.fetch(key(tenant, bearer.id), { context: { db, tenant, tokenId: bearer.id } }), bearer, now);
    },
    verifyNow(tenant, db, bearer, now) {
      const cacheKey = key(tenant, bearer.id);
      const entry = cache.get(cacheKey);
      if (entry !== undefined) return check(entry, bearer, now);
      const lookup = findTokenWithUserNow(db, bearer.id);
      if (lookup === null) return undefined;
      if (!lookup.found) return null;
      const fresh = remember(cacheKey, tenant, lookup.found);
      cache.set(cacheKey, fresh);
      return check(fresh, bearer, now);
    },
    forgetToken(tenant, tokenId) {
      cache.delete(key(tenant, tokenId));
    },
    forgetUser(tenant, userId) {
      for (const cacheKey of [...(tokensOfUser.get(userKey(tenant, userId)) ?? [])]) cache.delete(cacheKey);
    },
    markUsed(tenant, tokenId, atMs) {
      const entry = cache.get(key(tenant, tokenId), { allowStale: true });
      if (entry) entry.lastUsedAtMs = atMs;
    },
  };
}
