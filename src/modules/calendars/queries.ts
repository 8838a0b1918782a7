import type { TenantDb } from '../../db/types.js';

// The calendar module owns `calendar_feeds`: a person's secret feed address, as its sha256.

export interface FeedRow {
  id: number;
  person_id: number;
  created_at: string;
  last_used_at: string | null;
}

/**
 * A new feed for the person in place of any earlier one (whose address stops working at once).
 * One upsert, not a delete and an insert: two requests at once (a double click) would both find
 * no row to delete, and the second insert would break the one-feed-a-person index.
 */
export async function replaceFeed(db: TenantDb, personId: number, tokenHash: string, now: string): Promise<void> {
  const feed = { token: tokenHash, created_at: now, last_used_at: null };
  await db
    .insertInto('calendar_feeds')
    .values({ person_id: personId, ...feed })
    .onConflict((conflict) => conflict.column('person_id').doUpdateSet(feed))
    .execute();
}

export async function findFeedOfPerson(db: TenantDb, personId: number): Promise<FeedRow | undefined> {
  return db.selectFrom('calendar_feeds').select(['id', 'person_id', 'created_at', 'last_used_at']).where('person_id', '=', personId).executeTakeFirst();
}

export async function deleteFeedOfPerson(db: TenantDb, personId: number): Promise<void> {
  await db.deleteFrom('calendar_feeds').where('person_id', '=', personId).execute();
}

/** The feed whose secret hashes to `tokenHash`, with whether its person is active; undefined also when the person is erased. */
export async function findFeedByToken(db: TenantDb, tokenHash: string): Promise<(FeedRow & { is_active: unknown }) | undefined> {
  return db
    .selectFrom('calendar_feeds as f')
    .innerJoin('users as u', 'u.id', 'f.person_id')
    .select(['f.id', 'f.person_id', 'f.created_at', 'f.last_used_at', 'u.is_active'])
    .where('f.token', '=', tokenHash)
    .executeTakeFirst();
}

/** Records a fetch, unless one was recorded since `notBefore` (by this or another instance). */
export async function touchFeed(db: TenantDb, id: number, now: string, notBefore: string): Promise<void> {
  await db
    .updateTable('calendar_feeds')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
    .execute();
}
