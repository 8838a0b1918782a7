import { CompiledQuery, sql, type Selectable } from 'kysely';
import { onPostgres } from '../../db/dialect.js';
import type { Storage } from '../../db/storage.js';
import { SESSION_USER_COLUMNS, type PersonalAccessTokensTable, type SessionUser, type TenantDb } from '../../db/types.js';
import { USER_TOKENABLE_TYPE } from './secrets.js';

// HOT PATH (see docs/architecture.md): the token lookup, compiled once per tenant and run through Storage.readNow.

export type TokenRow = Selectable<PersonalAccessTokensTable>;
export interface NewToken {
  userId: number;
  name: string;
  hash: string;
  abilities: string[];
  expiresAt: string | null;
  now: string;
  /** A browser's session: 0 short, 1 remembered; absent for an API token. */
  sessionRemember?: number;
}

export function insertToken(db: TenantDb, token: NewToken): Promise<TokenRow> {
  return db
    .insertInto('personal_access_tokens')
    .values({
      tokenable_type: USER_TOKENABLE_TYPE,
      tokenable_id: token.userId,
      name: token.name,
      token: token.hash,
      abilities: JSON.stringify(token.abilities),
      last_used_at: null,
      expires_at: token.expiresAt,
      created_at: token.now,
      updated_at: token.now,
      session_remember: token.sessionRemember ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** When a token ends (null: never); undefined when it is gone. */
export async function tokenExpiry(db: TenantDb, tokenId: number): Promise<string | null | undefined> {
  const row = await db.selectFrom('personal_access_tokens').select('expires_at').where('id', '=', tokenId).executeTakeFirst();
  return row?.expires_at;
}

export interface TokenWithUser {
  token: Pick<TokenRow, 'id' | 'token' | 'abilities' | 'last_used_at' | 'expires_at' | 'created_at' | 'session_remember'>;
  user: SessionUser;
}

const lookupQuery = (db: TenantDb, tokenId: number) =>
  db
    .selectFrom('personal_access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.tokenable_id')
    .select(SESSION_USER_COLUMNS.map((column) => `u.${column}` as const))
    .select([
      't.id as token_id',
      't.token as token_hash',
      't.abilities as token_abilities',
      't.last_used_at as token_last_used_at',
      't.expires_at as token_expires_at',
      't.created_at as token_created_at',
      't.session_remember as token_session_remember',
    ])
    .where('t.id', '=', tokenId)
    .where('t.tokenable_type', '=', USER_TOKENABLE_TYPE);

type LookupRow = Awaited<ReturnType<ReturnType<typeof lookupQuery>['executeTakeFirstOrThrow']>>;

// Compiled once per database handle and run with new parameters: building the query anew
// for every authenticated request cost more than running it. Only the SQL text is kept: a
// compiled query also holds its syntax tree, ~200 objects (9 KB) per tenant.
const compiledLookups = new WeakMap<TenantDb, CompiledQuery<LookupRow>>();

/** The token and its owner in one query: this runs for every token not in the verifier's memory. */
function compiledLookup(db: TenantDb): CompiledQuery<LookupRow> {
  let compiled = compiledLookups.get(db);
  if (!compiled) {
    compiled = CompiledQuery.raw(lookupQuery(db, 0).compile().sql) as CompiledQuery<LookupRow>;
    compiledLookups.set(db, compiled);
  }
  return compiled;
}

/** The SQL of the token lookup, as a cache's source: the tables it reads must announce their changes. */
export const tokenLookupSql = (db: TenantDb): string => compiledLookup(db).sql;

export async function findTokenWithUser(db: TenantDb, tokenId: number): Promise<TokenWithUser | undefined> {
  const compiled = compiledLookup(db);
  const result = await db.executeQuery<LookupRow>({ ...compiled, parameters: [tokenId, USER_TOKENABLE_TYPE] });
  return fromLookupRow(result.rows[0]);
}

/**
 * The same lookup, answered synchronously where the storage can (SQLite); null where it cannot.
 * It runs the very SQL that Kysely compiled for findTokenWithUser.
 */
export function findTokenWithUserNow(
  storage: Pick<Storage, 'readNow'>,
  db: TenantDb,
  tokenId: number,
): { found: TokenWithUser | undefined } | null {
  const read = storage.readNow<LookupRow>(db, compiledLookup(db).sql, [tokenId, USER_TOKENABLE_TYPE]);
  return read && { found: fromLookupRow(read.row) };
}

function fromLookupRow(row: LookupRow | undefined): TokenWithUser | undefined {
  if (!row) return undefined;
  const { token_id, token_hash, token_abilities, token_last_used_at, token_expires_at, token_created_at, token_session_remember, ...user } = row;
  return {
    token: {
      id: token_id,
      token: token_hash,
      abilities: token_abilities,
      last_used_at: token_last_used_at,
      expires_at: token_expires_at,
      created_at: token_created_at,
      session_remember: token_session_remember,
    },
    user,
  };
}

/**
 * A token's use to write: `at` becomes its last_used_at unless another request (or instance)
 * already wrote `staleBefore` or later, so a busy token costs one write a minute, not one per request.
 */
export interface TokenUse {
  tokenId: number;
  at: string;
  staleBefore: string;
}

/**
 * Writes the uses in one statement: each token's value is picked by a CASE on its id. One
 * statement, not one per token: a storm of first uses (500 people registering at once) otherwise
 * sent one update per token, each a round trip on PostgreSQL.
 */
export async function touchTokensLastUsed(db: TenantDb, uses: readonly TokenUse[]): Promise<void> {
  if (uses.length === 0) return;
  // On PostgreSQL the parameters of a CASE have no type of their own: read as the column's type.
  const timestamp = (value: string) => (onPostgres(db) ? sql`cast(${value} as timestamp)` : sql`${value}`);
  const byToken = (valueOf: (use: TokenUse) => string) =>
    sql<string>`case ${sql.ref('id')} ${sql.join(uses.map((use) => sql`when ${use.tokenId} then ${timestamp(valueOf(use))}`), sql` `)} end`;
  await db
    .updateTable('personal_access_tokens')
    .set({ last_used_at: byToken((use) => use.at) })
    .where('id', 'in', uses.map((use) => use.tokenId))
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', byToken((use) => use.staleBefore))]))
    .execute();
}

/** A delete of the user's own tokens, to narrow further. */
const deleteUserTokens = (db: TenantDb, userId: number) =>
  db.deleteFrom('personal_access_tokens').where('tokenable_type', '=', USER_TOKENABLE_TYPE).where('tokenable_id', '=', userId);

export async function deleteTokensOfUser(db: TenantDb, userId: number): Promise<number> {
  const result = await deleteUserTokens(db, userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteTokenOfUser(db: TenantDb, userId: number, tokenId: number): Promise<number> {
  const result = await deleteUserTokens(db, userId).where('id', '=', tokenId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function listTokensOfUser(db: TenantDb, userId: number): Promise<TokenRow[]> {
  return db
    .selectFrom('personal_access_tokens')
    .selectAll()
    .where('tokenable_type', '=', USER_TOKENABLE_TYPE)
    .where('tokenable_id', '=', userId)
    .orderBy('id')
    .execute();
}

/** Deletes every token of the user except one (the caller's own). */
export async function deleteOtherTokensOfUser(db: TenantDb, userId: number, keepTokenId: number): Promise<number> {
  const result = await deleteUserTokens(db, userId).where('id', '<>', keepTokenId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes tokens whose expiry lies before `expiredBefore` (database form). */
export async function deleteTokensExpiredBefore(db: TenantDb, expiredBefore: string): Promise<number> {
  const result = await db
    .deleteFrom('personal_access_tokens')
    .where('expires_at', 'is not', null)
    .where('expires_at', '<', expiredBefore)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Cut-offs of the two kinds of browser session, as database timestamps: a last use before them ended it. */
export interface SessionCutoffs {
  short: string;
  remembered: string;
}

/**
 * Deletes the browser sessions that have ended by idleness (their last use, or their creation
 * when never used, before the cut-off of their kind); only `userId`'s or `tokenId` when given.
 */
export async function deleteEndedSessions(db: TenantDb, cutoffs: SessionCutoffs, only: { userId?: number; tokenId?: number } = {}): Promise<number> {
  let query = db
    .deleteFrom('personal_access_tokens')
    .where((eb) =>
      eb.or([
        eb.and([eb('session_remember', '=', 0), eb(eb.fn.coalesce('last_used_at', 'created_at'), '<', cutoffs.short)]),
        eb.and([eb('session_remember', '=', 1), eb(eb.fn.coalesce('last_used_at', 'created_at'), '<', cutoffs.remembered)]),
      ]),
    );
  if (only.userId !== undefined) query = query.where('tokenable_type', '=', USER_TOKENABLE_TYPE).where('tokenable_id', '=', only.userId);
  if (only.tokenId !== undefined) query = query.where('id', '=', only.tokenId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The stored hash of a token, or undefined when there is no such token. */
export async function storedTokenHash(db: TenantDb, tokenId: number): Promise<string | undefined> {
  const row = await db.selectFrom('personal_access_tokens').select('token').where('id', '=', tokenId).executeTakeFirst();
  return row?.token;
}

export async function deleteToken(db: TenantDb, tokenId: number): Promise<void> {
  await db.deleteFrom('personal_access_tokens').where('id', '=', tokenId).execute();
}
