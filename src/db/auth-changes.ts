import { sql, type Kysely } from 'kysely';
import type { Storage } from './storage.js';
import type { RegistryDatabase } from './types.js';

type Registry = Kysely<RegistryDatabase>;

export interface AuthChangeRow {
  id: number;
  tenant: string;
  user_id: number | null;
  token_id: number | null;
}

/** Any constant: it names the lock that puts appends to the feed in one line. */
const FEED_APPEND_LOCK = 7_140_221;

/**
 * Appends one change. Readers follow the feed by id, so ids must become visible in order: on
 * PostgreSQL two transactions could commit their ids out of order (a reader would skip the
 * smaller one for good), so appends take a transaction lock first. SQLite has one writer anyway.
 */
export async function appendAuthChange(
  storage: Pick<Storage, 'registry' | 'dialect'>,
  change: { tenant: string; userId: number | null; tokenId: number | null; at: string },
): Promise<void> {
  await storage.registry.transaction().execute(async (trx) => {
    if (storage.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${FEED_APPEND_LOCK})`.execute(trx);
    await trx
      .insertInto('auth_changes')
      .values({ tenant: change.tenant, user_id: change.userId, token_id: change.tokenId, created_at: change.at })
      .execute();
  });
}

/** Changes after `afterId`, oldest first. */
export function readAuthChangesAfter(registry: Registry, afterId: number, limit: number): Promise<AuthChangeRow[]> {
  return registry
    .selectFrom('auth_changes')
    .select(['id', 'tenant', 'user_id', 'token_id'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The newest change's id, or 0: where a reader that needs no history starts. */
export async function latestAuthChangeId(registry: Registry): Promise<number> {
  const row = await registry.selectFrom('auth_changes').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(row?.id ?? 0);
}

export async function deleteAuthChangesBefore(registry: Registry, before: string): Promise<void> {
  await registry.deleteFrom('auth_changes').where('created_at', '<', before).execute();
}
