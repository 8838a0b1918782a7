import { abilitiesBeyond, ALL_GRANTED } from '../../http/abilities.js';
import type { TenantDb } from '../../db/types.js';
import { fieldMessages, type FieldErrors } from '../../errors.js';
import { toApiTimestamp, toApiTimestampOrNull, toDbTimestamp } from '../../lib/time.js';
import {
  deleteOtherTokensOfUser,
  deleteTokenOfUser,
  deleteTokensOfUser,
  insertToken,
  listTokensOfUser,
  type TokenRow,
  deleteEndedSessions,
  deleteToken,
  storedTokenHash,
  type SessionCutoffs,
} from './queries.js';
import type { AccessTokenRecord, IssuedToken, TokenListItem } from './schemas.js';
import {
  formatPlainToken,
  generateTokenSecret,
  hashTokenSecret,
  LOGIN_TOKEN_NAME,
  parseAbilities,
  parseBearerHeader,
  storedTokenDigest,
  tokenSecretMatches,
} from './secrets.js';
import type { SessionLimits } from './verifier.js';
import type { SessionKind } from '../../http/caller.js';

// Revoking a token deletes its row; the database announces the change to every instance's
// caches by itself (db/invalidation), so nothing here publishes anything.

export function toAccessTokenRecord(row: TokenRow): AccessTokenRecord {
  const record: AccessTokenRecord = {
    name: row.name,
    abilities: parseAbilities(row.abilities),
    tokenable_id: Number(row.tokenable_id),
    tokenable_type: row.tokenable_type,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
    id: Number(row.id),
  };
  if (row.expires_at !== null) record.expires_at = toApiTimestamp(row.expires_at);
  return record;
}

export function toTokenListItem(row: TokenRow, currentTokenId: number | null): TokenListItem {
  return {
    id: Number(row.id),
    name: row.name,
    abilities: parseAbilities(row.abilities),
    last_used_at: toApiTimestampOrNull(row.last_used_at),
    expires_at: toApiTimestampOrNull(row.expires_at),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
    current: Number(row.id) === currentTokenId,
  };
}

export interface IssueTokenOptions {
  tokenPrefix: string;
  name?: string;
  abilities?: string[];
  expiresAt?: Date | null;
  now?: Date;
  /** A browser's session: named `web session`, every ability, no expiry but by idleness. */
  session?: SessionKind;
}

/** The name of every browser session's token; POST /tokens may not take it. */
export const SESSION_TOKEN_NAME = 'web session';

/** Creates a token for a user; only its hash is stored. */
export async function issueToken(db: TenantDb, userId: number, options: IssueTokenOptions): Promise<IssuedToken> {
  const secret = generateTokenSecret(options.tokenPrefix);
  const session = options.session === undefined ? {} : { name: SESSION_TOKEN_NAME, abilities: [...ALL_GRANTED], expiresAt: null, sessionRemember: options.session === 'remembered' ? 1 : 0 };
  const row = await insertToken(db, {
    userId,
    name: options.name ?? LOGIN_TOKEN_NAME,
    hash: hashTokenSecret(secret),
    abilities: options.abilities ?? [...ALL_GRANTED],
    expiresAt: options.expiresAt ? toDbTimestamp(options.expiresAt) : null,
    now: toDbTimestamp(options.now ?? new Date()),
    ...session,
  });
  return { accessToken: toAccessTokenRecord(row), plainTextToken: formatPlainToken(Number(row.id), secret) };
}

/** What a new token is asked for, and what the token that asks holds (the CLI holds everything). */
export interface TokenGrant {
  abilities: readonly string[];
  /** Null: no expiry. */
  expiresAt: Date | null;
}

/**
 * What is wrong with a requested token beyond its schema: abilities its maker's token lacks or
 * an expiry after the maker's own (a token cannot grant what it lacks: one that ends tomorrow
 * cannot make one that never does), an expiry that is not in the future. Null when nothing is.
 */
export function newTokenProblems(maker: TokenGrant, request: TokenGrant, now = Date.now()): FieldErrors | null {
  const beyond = abilitiesBeyond(maker.abilities, request.abilities);
  if (beyond.length > 0) return { abilities: [fieldMessages.abilitiesBeyondToken(beyond)] };
  if (request.expiresAt && request.expiresAt.getTime() <= now) return { expires_at: [fieldMessages.dateAfterNow('expires_at')] };
  if (maker.expiresAt && (!request.expiresAt || request.expiresAt > maker.expiresAt)) {
    return { expires_at: [fieldMessages.expiryBeyondToken(toApiTimestamp(maker.expiresAt))] };
  }
  return null;
}

/** The user's tokens; with `sessions`, their sessions that ended by idleness are deleted first, so never listed. */
export async function listTokens(db: TenantDb, userId: number, currentTokenId: number | null, sessions?: SessionLimits): Promise<TokenListItem[]> {
  if (sessions) await deleteEndedSessions(db, sessionCutoffs(sessions, new Date()), { userId });
  return (await listTokensOfUser(db, userId)).map((row) => toTokenListItem(row, currentTokenId));
}

/** What ended a session at `now`: a last use before these moments. */
export const sessionCutoffs = (limits: SessionLimits, now: Date): SessionCutoffs => ({
  short: toDbTimestamp(new Date(now.getTime() - limits.idleMs)),
  remembered: toDbTimestamp(new Date(now.getTime() - limits.rememberMs)),
});

/** Deletes the session token `tokenId` if it has ended by idleness (a cookie presented it after its end). */
export const deleteSessionIfEnded = (db: TenantDb, tokenId: number, limits: SessionLimits, now = new Date()): Promise<number> =>
  deleteEndedSessions(db, sessionCutoffs(limits, now), { tokenId });

/**
 * Deletes the token a plain text names, when the secret matches (compared in constant time): a
 * session cookie sent along with a new sign-in is replaced, and its token must not live on.
 */
export async function revokePresentedToken(db: TenantDb, plainToken: string): Promise<void> {
  const bearer = parseBearerHeader(`Bearer ${plainToken}`);
  if (!bearer) return;
  const stored = await storedTokenHash(db, bearer.id);
  if (stored !== undefined && tokenSecretMatches(storedTokenDigest(stored), bearer.secret)) await deleteToken(db, bearer.id);
}

/** Revokes one of the user's tokens; false when the user has no token with that id. */
export async function revokeToken(db: TenantDb, userId: number, tokenId: number): Promise<boolean> {
  return (await deleteTokenOfUser(db, userId, tokenId)) > 0;
}

/** Revokes every token of the user but one (the caller's own); returns how many. */
export const revokeOtherTokens = (db: TenantDb, userId: number, keepTokenId: number): Promise<number> =>
  deleteOtherTokensOfUser(db, userId, keepTokenId);

/** Revokes every token of the user; returns how many. */
export const revokeAllTokens = (db: TenantDb, userId: number): Promise<number> => deleteTokensOfUser(db, userId);
