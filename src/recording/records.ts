import { sql } from 'kysely';
import type { TenantDb } from '../db/types.js';

/**
 * Erasure (docs/rules/erasure.md): the records about the person and their rows keep their
 * tombstones but lose their field values, and the records they made no longer name them.
 */
export async function forgetPersonInChanges(db: TenantDb, personId: number): Promise<void> {
  await db
    .updateTable('change_records')
    .set({ changes: '{}' })
    .where((eb) => eb.or([eb('person_id', '=', personId), eb('other_person_id', '=', personId)]))
    .execute();
  await db.updateTable('change_records').set({ actor_id: null }).where('actor_id', '=', personId).execute();
}

export interface FeedRecord {
  seq: number;
  entity: string;
  entity_id: string;
  action: string;
  at: string;
}

/** Where the feed stands: the newest seq handed out, and up to which records were pruned. */
export async function feedBounds(db: TenantDb): Promise<{ lastSeq: number; prunedThrough: number }> {
  const row = await db.selectFrom('change_sequence').select(['last_seq', 'pruned_through']).where('id', '=', 1).executeTakeFirstOrThrow();
  return { lastSeq: Number(row.last_seq), prunedThrough: Number(row.pruned_through) };
}

/** The records after `after`, in seq (commit) order: the primary key's own order. */
export const recordsAfter = (db: TenantDb, after: number, limit: number): Promise<FeedRecord[]> =>
  db.selectFrom('change_records').select(['seq', 'entity', 'entity_id', 'action', 'at']).where('seq', '>', after).orderBy('seq').limit(limit).execute();

/**
 * Deletes the records older than `before` and remembers how far the feed no longer reaches
 * (a reader asking from before that is told to resynchronise); returns how many went.
 */
export async function pruneRecords(db: TenantDb, before: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const newest = await trx.selectFrom('change_records').select((eb) => eb.fn.max('seq').as('seq')).where('at', '<', before).executeTakeFirst();
    const through = newest?.seq === null || newest?.seq === undefined ? null : Number(newest.seq);
    if (through === null) return 0;
    const deleted = await trx.deleteFrom('change_records').where('seq', '<=', through).executeTakeFirst();
    await trx
      .updateTable('change_sequence')
      .set((eb) => ({ pruned_through: sql<number>`case when ${eb.ref('pruned_through')} > ${through} then ${eb.ref('pruned_through')} else ${through} end` }))
      .where('id', '=', 1)
      .execute();
    return Number(deleted.numDeletedRows);
  });
}

/** Whose records a history shows. */
export type HistorySubject =
  /** `participationIds`: the person's participations whose records the caller may see (in events they see). */
  | { kind: 'person'; id: number; participationIds: readonly string[] | 'all' }
  | { kind: 'group'; id: number }
  | { kind: 'event'; id: number };

export interface HistoryRow {
  seq: number;
  entity: string;
  entity_id: string;
  action: string;
  at: string;
  changes: string;
  actor_id: number | null;
  actor_firstname: string | null;
  actor_lastname: string | null;
}

/**
 * A resource's change records, newest first, before `beforeSeq` (keyset paging on seq); for a
 * person also those of their memberships and participations. Each with its actor's names.
 */
export function historyOf(db: TenantDb, subject: HistorySubject, beforeSeq: number | null, limit: number): Promise<HistoryRow[]> {
  let query = db
    .selectFrom('change_records as c')
    .leftJoin('users as a', 'a.id', 'c.actor_id')
    .select(['c.seq', 'c.entity', 'c.entity_id', 'c.action', 'c.at', 'c.changes', 'c.actor_id', 'a.firstname as actor_firstname', 'a.lastname as actor_lastname']);
  query =
    subject.kind === 'person'
      ? query.where((eb) =>
          eb.or([
            eb.and([eb('c.entity', '=', 'person'), eb('c.entity_id', '=', String(subject.id))]),
            eb.and([eb('c.person_id', '=', subject.id), eb('c.entity', '=', 'membership')]),
            ...(subject.participationIds === 'all'
              ? [eb.and([eb('c.person_id', '=', subject.id), eb('c.entity', '=', 'participation')])]
              : subject.participationIds.length > 0
                ? [eb.and([eb('c.person_id', '=', subject.id), eb('c.entity', '=', 'participation'), eb('c.entity_id', 'in', subject.participationIds)])]
                : []),
          ]),
        )
      : query.where('c.entity', '=', subject.kind).where('c.entity_id', '=', String(subject.id));
  if (beforeSeq !== null) query = query.where('c.seq', '<', beforeSeq);
  return query.orderBy('c.seq', 'desc').limit(limit + 1).execute();
}
