import type { Kysely } from 'kysely';
import { insertToken, type TokenRow } from '../db/tokens.js';
import type { TenantDatabase } from '../db/types.js';
import { toApiTimestamp, toApiTimestampOrNull, toDbTimestamp } from './time.js';
import {
  ALL_ABILITIES,
  formatPlainToken,
  generateTokenSecret,
  hashTokenSecret,
  LOGIN_TOKEN_NAME,
  parseAbilities,
} from './tokens.js';

/** The token record as the original service shows it (api.md 2.2), fields in that order. */
export interface AccessTokenRecord {
  name: string;
  abilities: string[];
  tokenable_id: number;
  tokenable_type: string;
  created_at: string;
  updated_at: string;
  id: number;
  /** Only present when the token expires (tokens made by POST /api/tokens with expires_at). */
  expires_at?: string;
}

export interface IssuedToken {
  accessToken: AccessTokenRecord;
  /** `<id>|<secret>`: shown once, never stored. */
  plainTextToken: string;
}

export interface IssueTokenOptions {
  tokenPrefix: string;
  name?: string;
  abilities?: string[];
  expiresAt?: Date | null;
  now?: Date;
}

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

/** A token as GET /api/tokens lists it: never its secret or hash. */
export interface TokenListItem {
  id: number;
  name: string;
  abilities: string[];
  last_used_at: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** The token this request was made with. */
  current: boolean;
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

/** Creates a token for a user; only its hash is stored. */
export async function issueToken(
  db: Kysely<TenantDatabase>,
  userId: number,
  options: IssueTokenOptions,
): Promise<IssuedToken> {
  const secret = generateTokenSecret(options.tokenPrefix);
  const row = await insertToken(db, {
    userId,
    name: options.name ?? LOGIN_TOKEN_NAME,
    hash: hashTokenSecret(secret),
    abilities: options.abilities ?? ALL_ABILITIES,
    expiresAt: options.expiresAt ? toDbTimestamp(options.expiresAt) : null,
    now: toDbTimestamp(options.now ?? new Date()),
  });
  return { accessToken: toAccessTokenRecord(row), plainTextToken: formatPlainToken(Number(row.id), secret) };
}

