import { sql, type RawBuilder } from 'kysely';
import { onPostgres } from '../db/dialect.js';
import type { TenantDb } from '../db/types.js';
import { toDbTimestamp } from '../lib/time.js';

export type ChangedEntity = 'person' | 'group' | 'membership' | 'guardianship' | 'role_type' | 'event' | 'participation';
export type ChangeAction = 'created' | 'updated' | 'deleted';
/** `{field: [old, new]}` of the fields an update changed. */
export type FieldChanges = Record<string, [unknown, unknown]>;

export interface ChangeNote {
  entity: ChangedEntity;
  entityId: number | string;
  action: ChangeAction;
  changes?: FieldChanges;
  /** The person the record is about (see the change_records migration). */
  personId?: number | null;
  otherPersonId?: number | null;
  /** Who made the change, when not the transaction's actor (a turn of registrations by several people). */
  actorId?: number | null;
}

interface PendingChanges {
  actorId: number | null;
  notes: ChangeNote[];
}

const pending = new WeakMap<object, PendingChanges>();

/**
 * Runs `work` in a transaction that writes a change record for every change it notes
 * (noteChange), at its end: a rolled-back change leaves no record, a committed one always has
 * one. `actorId` is the person whose token asked for it; null for the command line.
 */
export async function transact<T>(db: TenantDb, actorId: number | null, work: (trx: TenantDb) => Promise<T>): Promise<T> {
  // Called inside another transact (a new user with their first membership): one transaction.
  if (pending.has(db)) return work(db);
  if (db.isTransaction) throw new Error('transact() inside a transaction it did not start: its changes would have no records');
  return db.transaction().execute(async (trx) => {
    const changes: PendingChanges = { actorId, notes: [] };
    pending.set(trx, changes);
    const result = await work(trx);
    await writeRecords(trx, changes, new Date());
    return result;
  });
}

/** Notes a change to be recorded when `db`'s transaction (one of transact's) ends. */
export function noteChange(db: TenantDb, note: ChangeNote): void {
  const changes = pending.get(db);
  // A write outside transact would have no record: a mistake of the code, found by the tests.
  if (!changes) throw new Error(`a change of a ${note.entity} outside transact(): it would leave no change record`);
  changes.notes.push(note);
}

/** The fields whose values differ between two shapes of a row (its API shapes), as `{field: [old, new]}`. */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>, ignore: readonly string[] = []): FieldChanges {
  const changes: FieldChanges = {};
  for (const field of Object.keys(after)) {
    if (ignore.includes(field)) continue;
    const [old, now] = [before[field] ?? null, after[field] ?? null];
    if (JSON.stringify(old) !== JSON.stringify(now)) changes[field] = [old, now];
  }
  return changes;
}

/** Records per insert statement: far below both dialects' limits on bound parameters. */
const CHUNK = 500;

async function writeRecords(trx: TenantDb, changes: PendingChanges, now: Date): Promise<void> {
  const { notes } = changes;
  if (notes.length === 0) return;
  // Takes the sequence row (locked until commit) and numbers this transaction's records. On
  // PostgreSQL this lock also puts the people lists' order (member_order, kept by triggers
  // deferred to the commit) in one writer's hands at a time: a write of memberships, names or
  // group paths that took no sequence row would race another's (migration keep-members-in-list-order).
  const moveSequence = trx
    .updateTable('change_sequence')
    .set((eb) => ({ last_seq: eb('last_seq', '+', notes.length) }))
    .where('id', '=', 1);
  const at = toDbTimestamp(now);
  // Each record's number counts back from the moved sequence: the last record gets last_seq.
  const rowsCountingFrom = (lastSeq: RawBuilder<number>, start: number) =>
    notes.slice(start, start + CHUNK).map((note, index) => ({
      seq: sql<number>`${lastSeq} - ${notes.length - 1 - (start + index)}`,
      entity: note.entity,
      entity_id: String(note.entityId),
      action: note.action,
      at,
      actor_id: note.actorId === undefined ? changes.actorId : note.actorId,
      person_id: note.personId ?? null,
      other_person_id: note.otherPersonId ?? null,
      changes: JSON.stringify(note.changes ?? {}),
    }));
  const movedSequence = sql<number>`(${trx.selectFrom('change_sequence').select('last_seq').where('id', '=', 1)})`;
  let start = 0;
  if (onPostgres(trx)) {
    // One round trip less while the event's or the tree's row is locked (a registration storm
    // queues on it): the sequence moves in the statement that writes the first records, whose
    // numbers come from its RETURNING (the statement itself still sees the row as it was).
    await trx
      .with('taken', () => moveSequence.returning('last_seq'))
      .insertInto('change_records')
      .values(rowsCountingFrom(sql<number>`(select last_seq from taken)`, 0))
      .execute();
    start = CHUNK;
  } else {
    // Without its one row the records would be numbered by SQLite itself (seq NULL): refuse.
    const { numUpdatedRows } = await moveSequence.executeTakeFirstOrThrow();
    if (numUpdatedRows !== 1n) throw new Error('change_sequence has no row 1');
  }
  for (; start < notes.length; start += CHUNK) {
    await trx.insertInto('change_records').values(rowsCountingFrom(movedSequence, start)).execute();
  }
}

/** Who a change record names as its actor: the caller, or null for the command line (no person). */
export const actorOf = (access: { personId: number }): number | null => (access.personId > 0 ? access.personId : null);

type About = Pick<ChangeNote, 'personId' | 'otherPersonId' | 'actorId'>;

export const noteCreated = (db: TenantDb, entity: ChangedEntity, entityId: number | string, about: About = {}) =>
  noteChange(db, { entity, entityId, action: 'created', ...about });

export const noteUpdated = (db: TenantDb, entity: ChangedEntity, entityId: number | string, changes: FieldChanges, about: About = {}) =>
  noteChange(db, { entity, entityId, action: 'updated', changes, ...about });

export const noteDeleted = (db: TenantDb, entity: ChangedEntity, entityId: number | string, about: About = {}) =>
  noteChange(db, { entity, entityId, action: 'deleted', ...about });

/** The fields a record of an update leaves out: the row's bookkeeping, not its content. */
export const BOOKKEEPING = ['id', 'created_at', 'updated_at'] as const;
