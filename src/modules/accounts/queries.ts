import { sql } from 'kysely';
import { onPostgres } from '../../db/dialect.js';
import type { TenantDb } from '../../db/types.js';
import { toApiTimestamp } from '../../lib/time.js';
import type { AccountTokenKind } from './tokens.js';

// The SQL of the accounts module: reset and invitation tokens (`account_tokens`).

export interface AccountTokenRow {
  id: number;
  kind: AccountTokenKind;
  user_id: number;
  email: string;
  inviter_id: number | null;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/**
 * Forgot-password requests and invitations of one person wait for each other (PostgreSQL: a
 * transaction-scoped advisory lock of this class and the person's id), so that two requests at once
 * cannot both pass the count of the last hour, or both leave a live token behind. A SQLite
 * database takes one writing transaction at a time anyway.
 */
const ACCOUNT_LOCK_CLASS = 4_207_001;
export async function lockAccountOf(db: TenantDb, userId: number): Promise<void> {
  if (onPostgres(db)) await sql`select pg_advisory_xact_lock(${ACCOUNT_LOCK_CLASS}::integer, ${userId}::integer)`.execute(db);
}

export async function insertAccountToken(
  db: TenantDb,
  token: { kind: AccountTokenKind; userId: number; hash: string; email: string; inviterId: number | null; expiresAt: string; createdAt: string },
): Promise<number> {
  const row = await db
    .insertInto('account_tokens')
    .values({
      kind: token.kind,
      user_id: token.userId,
      token: token.hash,
      email: token.email,
      inviter_id: token.inviterId,
      expires_at: token.expiresAt,
      used_at: null,
      created_at: token.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The token with this sha256 (hex), with the stored hash for the constant-time comparison. */
export async function findAccountTokenByHash(db: TenantDb, hash: string): Promise<(AccountTokenRow & { token: string }) | undefined> {
  const row = await db.selectFrom('account_tokens').selectAll().where('token', '=', hash).executeTakeFirst();
  return row === undefined ? undefined : { ...row, id: Number(row.id), user_id: Number(row.user_id), inviter_id: row.inviter_id === null ? null : Number(row.inviter_id) };
}

/**
 * Ends the person's live tokens of these kinds (their expiry moves to `now`; the rows stay, so the
 * count of the last hour still sees them); returns their ids.
 */
export async function voidLiveTokens(db: TenantDb, userId: number, kinds: readonly AccountTokenKind[], now: string): Promise<number[]> {
  const live = await db
    .selectFrom('account_tokens')
    .select('id')
    .where('user_id', '=', userId)
    .where('kind', 'in', [...kinds])
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
  const ids = live.map((row) => Number(row.id));
  if (ids.length > 0) await db.updateTable('account_tokens').set({ expires_at: now }).where('id', 'in', ids).execute();
  return ids;
}

/** Marks a token used, unless another request used or voided it first; false then. */
export async function useAccountToken(db: TenantDb, id: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** How many reset tokens went to this person at this address since `since` (the per-address limit). */
export async function countResetsSince(db: TenantDb, userId: number, lowerEmail: string, since: string): Promise<{ count: number; latestMs: number | null }> {
  const rows = await db
    .selectFrom('account_tokens')
    .select(['email', 'created_at'])
    .where('user_id', '=', userId)
    .where('kind', '=', 'reset')
    .where('created_at', '>', since)
    .execute();
  const mine = rows.filter((row) => row.email.toLowerCase() === lowerEmail).map((row) => Date.parse(toApiTimestamp(row.created_at)));
  return { count: mine.length, latestMs: mine.length === 0 ? null : Math.max(...mine) };
}

/** Erasure: every token of the person; returns their ids. */
export async function deleteAccountTokensOf(db: TenantDb, userId: number): Promise<number[]> {
  const rows = await db.deleteFrom('account_tokens').where('user_id', '=', userId).returning('id').execute();
  return rows.map((row) => Number(row.id));
}

/** Invitations an erased person sent no longer name them. */
export async function forgetInviter(db: TenantDb, inviterId: number): Promise<void> {
  await db.updateTable('account_tokens').set({ inviter_id: null }).where('inviter_id', '=', inviterId).execute();
}

