import type { TenantDb } from '../../db/types.js';

/** Whose records a history shows (integrations.md section 3). */
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
