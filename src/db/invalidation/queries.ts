import { sql, type Kysely } from 'kysely';
import type { RegistryDatabase, TenantDatabase } from '../types.js';

type Registry = Kysely<RegistryDatabase>;

/**
 * A change to something a cache may hold: a user (userId) or a token (tokenId); with neither, the
 * tenant's own settings (its registry row: name, time zone, language).
 */
export interface CacheChange {
  tenant: string;
  userId: number | null;
  tokenId: number | null;
}

/** Whether the change is to the tenant's settings rather than to one of its users or tokens. */
export const isTenantSettingsChange = (change: CacheChange): boolean => change.userId === null && change.tokenId === null;

export interface FeedRow {
  id: number;
  tenant: string;
  user_id: number | null;
  token_id: number | null;
}

/** Any constant: it names the lock that puts appends to the feed in one line. */
const FEED_APPEND_LOCK = 7_140_221;

/**
 * Appends changes to the registry's feed, which every instance reads. Readers follow the feed by
 * id, so ids must become visible in order: on PostgreSQL two transactions could commit their ids
 * out of order (a reader would skip the smaller one for good), so appends take a transaction lock
 * first. SQLite has one writer anyway.
 */
export async function appendToFeed(registry: Registry, dialect: 'sqlite' | 'postgres', changes: CacheChange[], at: string): Promise<void> {
  if (changes.length === 0) return;
  await registry.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${FEED_APPEND_LOCK})`.execute(trx);
    await trx
      .insertInto('auth_changes')
      .values(changes.map((change) => ({ tenant: change.tenant, user_id: change.userId, token_id: change.tokenId, created_at: at })))
      .execute();
  });
}

/** Changes after `afterId`, oldest first. */
export function readFeedAfter(registry: Registry, afterId: number, limit: number): Promise<FeedRow[]> {
  return registry
    .selectFrom('auth_changes')
    .select(['id', 'tenant', 'user_id', 'token_id'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The newest change's id, or 0: where a reader that needs no history starts. */
export async function latestFeedId(registry: Registry): Promise<number> {
  const row = await registry.selectFrom('auth_changes').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(row?.id ?? 0);
}

export async function deleteFeedBefore(registry: Registry, before: string): Promise<void> {
  await registry.deleteFrom('auth_changes').where('created_at', '<', before).execute();
}

/** A row of a tenant's outbox, written by its triggers. */
export interface OutboxRow {
  id: number;
  user_id: number | null;
  token_id: number | null;
}

/** What the tenant's triggers wrote and no relay has passed on yet, oldest first. */
export function readOutbox(db: Kysely<TenantDatabase>, limit: number): Promise<OutboxRow[]> {
  return db.selectFrom('cache_changes').select(['id', 'user_id', 'token_id']).orderBy('id').limit(limit).execute();
}

/**
 * Deletes exactly the rows a relay read. Not "up to the last id": on PostgreSQL a transaction
 * that took a smaller id may commit after a larger one was read, and its row must stay.
 */
export async function deleteOutboxRows(db: Kysely<TenantDatabase>, ids: number[]): Promise<void> {
  await db.deleteFrom('cache_changes').where('id', 'in', ids).execute();
}
