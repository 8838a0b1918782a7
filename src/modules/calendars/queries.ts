import type { TenantDb } from '../../db/types.js';

// The calendar module owns `calendar_feeds`: a person's secret feed address, as its sha256.

export interface FeedRow {
  id: number;
  person_id: number;
  created_at: string;
  last_used_at: string | null;
}

/** A new feed for the person in place of any earlier one (whose address stops working at once). */
export async function replaceFeed(db: TenantDb, personId: number, tokenHash: string, now: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('calendar_feeds').where('person_id', '=', personId).execute();
    await trx.insertInto('calendar_feeds').values({ person_id: personId, token: tokenHash, created_at: now, last_used_at: null }).execute();
  });
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
