import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Caller, SessionKind } from '../../http/caller.js';
import type { CacheChange } from '../../db/invalidation/queries.js';
import type { Storage } from '../../db/storage.js';
import type { TenantDatabase } from '../../db/types.js';
import { toApiTimestamp } from '../../lib/time.js';
import { toApiUser, type ApiUser } from '../users/schemas.js';
import { findTokenWithUser, findTokenWithUserNow, type TokenWithUser } from './queries.js';
import { parseAbilities, storedTokenDigest, tokenSecretMatches, type BearerToken } from './secrets.js';

// HOT PATH (see docs/architecture.md): every authenticated request passes here. What is
// unusual is on purpose: a synchronous variant (verifyNow) so the request needs no promise, and
// token rows remembered until the change feed says otherwise.

/** What is remembered of a token row: no database row, no password hash (~1.8 KB with its bookkeeping). */
interface CachedToken {
  /** The stored sha256 of the secret, as bytes. */
  tokenDigest: Buffer;
  user: ApiUser;
  active: boolean;
  abilities: string[];
  expiresAtMs: number | null;
  lastUsedAtMs: number | null;
  createdAtMs: number;
  session: SessionKind | null;
}

/** How long a browser's session lasts without a request. */
export interface SessionLimits {
  idleMs: number;
  rememberMs: number;
}

/**
 * Whether a session token has ended by idleness at `now`: its last use (minute resolution, as
 * last_used_at is written), or its creation when never used, lies further back than its limit.
 */
export function sessionEnded(session: SessionKind, lastActiveMs: number, limits: SessionLimits, now: number): boolean {
  return now - lastActiveMs > (session === 'remembered' ? limits.rememberMs : limits.idleMs);
}

/** SESSION_IDLE_MINUTES and SESSION_REMEMBER_DAYS when not set: two hours, thirty days. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = Object.freeze({ idleMs: 120 * 60_000, rememberMs: 30 * 86_400_000 });

export const sessionKindOf = (sessionRemember: number | null): SessionKind | null =>
  sessionRemember === null ? null : Number(sessionRemember) === 1 ? 'remembered' : 'short';

export interface TokenVerifier {
  /**
   * The user a bearer token belongs to, or null when the token is unknown, does not match, has
   * expired or belongs to a deactivated user. Callers decide what null means (401).
   */
  verify(tenant: string, db: Kysely<TenantDatabase>, bearer: BearerToken, now: number): Promise<Caller | null>;
  /**
   * The same answer without waiting: from memory, or from storage that answers synchronously
   * (SQLite). Undefined when only verify() can tell.
   */
  verifyNow(tenant: string, db: Kysely<TenantDatabase>, bearer: BearerToken, now: number): Caller | null | undefined;
  /** A token or user changed (here or on another instance): stop using what is remembered of it. */
  forget(change: CacheChange): void;
  /** Forget everything (the change feed could not be read for a while). */
  forgetAll(): void;
  /** After last_used_at was written for a token. */
  markUsed(tenant: string, tokenId: number, atMs: number): void;
  /** Stops sweeping stale rows (the app closes): nothing then holds the cache. */
  stop(): void;
}

export interface TokenVerifierOptions {
  /** Where verifyNow reads synchronously, when it can. */
  storage: Pick<Storage, 'readNow'>;
  /**
   * Whether remembered rows may be used now: true while the change feed is being read, which
   * applies every revocation within a second. When false, every request reads the database.
   */
  isCurrent: () => boolean;
  /**
   * The longest a token row read from the database is reused. Changes made through the service
   * and the CLI arrive through the feed; this only bounds how long an edit made with SQL behind
   * the service's back can go unnoticed.
   */
  maxAgeMs?: number;
  maxEntries?: number;
  /** Browser sessions end by idleness (config SESSION_IDLE_MINUTES, SESSION_REMEMBER_DAYS; their defaults). */
  sessions?: SessionLimits;
}

/** What the cache's fetch needs to read a token row. */
interface LookupContext {
  db: Kysely<TenantDatabase>;
  tokenId: number;
}

const msOrNull = (value: string | null) => (value === null ? null : Date.parse(toApiTimestamp(value)));

/** Changes are in the feed; only edits made with SQL behind the service's back wait this long. */
export const TOKEN_ROW_MAX_AGE_MS = 5 * 60_000;

/**
 * Token verification that remembers token rows, so a token costs one query per `maxAgeMs`
 * instead of one per request, and many tenants cost no more than one. The secret is still checked
 * on every request: only the stored hash is remembered, and it is compared in constant time.
 */
export function createTokenVerifier({ storage, isCurrent, maxAgeMs = TOKEN_ROW_MAX_AGE_MS, maxEntries = 50_000, sessions = DEFAULT_SESSION_LIMITS }: TokenVerifierOptions): TokenVerifier {
  const key = (tenant: string, tokenId: number) => `${tenant}\u0000${tokenId}`;
  const userKey = (tenant: string, userId: number) => `${tenant}\u0000${userId}`;
  const tokensOfUser = new Map<string, Set<string>>();
  // Bumped by every change in a tenant: a read that was under way meanwhile may have seen the
  // state before the change, so its answer is used once but not remembered.
  const generations = new Map<string, number>();
  const generationOf = (tenant: string) => generations.get(tenant) ?? 0;

  const toCachedToken = (found: TokenWithUser): CachedToken => ({
    tokenDigest: storedTokenDigest(found.token.token),
    user: toApiUser(found.user),
    active: Boolean(found.user.is_active),
    abilities: parseAbilities(found.token.abilities),
    expiresAtMs: msOrNull(found.token.expires_at),
    lastUsedAtMs: msOrNull(found.token.last_used_at),
    createdAtMs: Date.parse(toApiTimestamp(found.token.created_at)),
    session: sessionKindOf(found.token.session_remember),
  });
  const ownerOf = (cacheKey: string, entry: CachedToken) => userKey(cacheKey.slice(0, cacheKey.indexOf('\u0000')), entry.user.id);

  // Errors of the reads themselves (storage away: 503). Any other error from the cache means it
  // gave up on a read (see verify).
  const readFailures = new WeakSet<object>();

  const cache = new LRUCache<string, CachedToken, LookupContext>({
    max: maxEntries,
    ttl: maxAgeMs,
    // Concurrent requests with one token share one query.
    fetchMethod: async (_cacheKey, _stale, { context }) => {
      try {
        const found = await findTokenWithUser(context.db, context.tokenId);
        return found && toCachedToken(found);
      } catch (error) {
        if (typeof error === 'object' && error !== null) readFailures.add(error);
        throw error;
      }
    },
    // Each remembered token is listed under its owner while (and only while) it is in the cache,
    // so a change to the user forgets exactly the tokens that are there.
    onInsert: (entry, cacheKey) => {
      const owner = ownerOf(cacheKey, entry);
      let keys = tokensOfUser.get(owner);
      if (!keys) tokensOfUser.set(owner, (keys = new Set()));
      keys.add(cacheKey);
    },
    dispose: (entry, cacheKey) => {
      const owner = ownerOf(cacheKey, entry);
      const keys = tokensOfUser.get(owner);
      keys?.delete(cacheKey);
      if (keys?.size === 0) tokensOfUser.delete(owner);
    },
  });

  const check = (entry: CachedToken | undefined, bearer: BearerToken, now: number): Caller | null => {
    if (!entry) return null;
    if (!tokenSecretMatches(entry.tokenDigest, bearer.secret)) return null;
    if (!entry.active) return null;
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= now) return null;
    if (entry.session !== null && sessionEnded(entry.session, entry.lastUsedAtMs ?? entry.createdAtMs, sessions, now)) return null;
    return { user: entry.user, tokenId: bearer.id, abilities: entry.abilities, lastUsedAtMs: entry.lastUsedAtMs, session: entry.session, createdAtMs: entry.createdAtMs };
  };

  // Expired rows are dropped when read; the rest are swept here, so memory follows the tokens in
  // use rather than every token seen since start.
  const sweep = setInterval(() => cache.purgeStale(), Math.min(60_000, Math.max(1000, maxAgeMs))).unref();

  const forgetUser = (tenant: string, userId: number) => {
    const owner = userKey(tenant, userId);
    for (const cacheKey of [...(tokensOfUser.get(owner) ?? [])]) cache.delete(cacheKey);
    tokensOfUser.delete(owner);
  };

  return {
    async verify(tenant, db, bearer, now) {
      const cacheKey = key(tenant, bearer.id);
      const generation = generationOf(tenant);
      let entry: CachedToken | undefined;
      try {
        entry = await cache.fetch(cacheKey, { context: { db, tokenId: bearer.id }, forceRefresh: !isCurrent() });
      } catch (error) {
        // forget() or forgetAll() removed the token while it was being read, and the cache gives
        // up on such a read with an error of its own, for the request that started it and for
        // every one that joined it. They still get their answer: from a read after the change.
        if (typeof error !== 'object' || error === null || readFailures.has(error)) throw error;
        const found = await findTokenWithUser(db, bearer.id);
        return check(found && toCachedToken(found), bearer, now);
      }
      if (generationOf(tenant) !== generation) cache.delete(cacheKey);
      return check(entry, bearer, now);
    },
    verifyNow(tenant, db, bearer, now) {
      const cacheKey = key(tenant, bearer.id);
      const entry = isCurrent() ? cache.get(cacheKey) : undefined;
      if (entry !== undefined) return check(entry, bearer, now);
      const lookup = findTokenWithUserNow(storage, db, bearer.id);
      if (lookup === null) return undefined;
      if (!lookup.found) return null;
      const fresh = toCachedToken(lookup.found);
      cache.set(cacheKey, fresh);
      return check(fresh, bearer, now);
    },
    forget({ tenant, userId, tokenId }) {
      generations.set(tenant, generationOf(tenant) + 1);
      if (tokenId !== null) cache.delete(key(tenant, tokenId));
      if (userId !== null) forgetUser(tenant, userId);
    },
    forgetAll() {
      cache.clear();
    },
    stop() {
      clearInterval(sweep);
    },
    markUsed(tenant, tokenId, atMs) {
      const entry = cache.get(key(tenant, tokenId), { allowStale: true });
      if (entry) entry.lastUsedAtMs = atMs;
    },
  };
}
