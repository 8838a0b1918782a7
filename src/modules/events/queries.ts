import { sql, type SqlBool } from 'kysely';
import { onPostgres } from '../../db/dialect.js';
import type { TenantDb, GroupRow, EventRow } from '../../db/types.js';
import type { SortKey } from '../../http/paging.js';
import { normaliseDbTimestamp } from '../../lib/time.js';
import { CompiledQueries } from '../../db/compiled-queries.js';
import { groupAmong } from '../../db/conditions.js';
import { eventVisibleTo, type EventQuery, type EventViewer } from './visibility.js';

// The events module reads events with their groups (who sees what) and, for "has a participant",
// the participations of an event; the participations module writes those.

const nextVersion = sql<number>`version + 1`;
const nextSequence = sql<number>`sequence + 1`;

/** The group's columns, each read as `g_<column>` beside the event's own. */
const GROUP_COLUMNS = ['id', 'parent_id', 'name', 'name_key', 'kind', 'description', 'path', 'version', 'created_at', 'updated_at'] as const satisfies readonly (keyof GroupRow)[];
// A column added to groups must be read here too: the compiler names the one missing.
type MissingGroupColumn = Exclude<keyof GroupRow, (typeof GROUP_COLUMNS)[number]>;
const everyGroupColumnRead: [MissingGroupColumn] extends [never] ? true : MissingGroupColumn = true;

/**
 * Compiled once per handle: every request about an event, and every registration, reads the
 * event with its group first (who sees it, who manages it). One round trip, not two: a storm of
 * registrations is as fast as the server's CPU, and each query costs it the system call that
 * wakes the database (cpu profile of register-storm on PostgreSQL: a fifth of its time in writev).
 */
const eventWithGroupRows = new CompiledQueries(
  (db: TenantDb, _inputs: null, [id]: readonly unknown[]) =>
    db
      .selectFrom('events as e')
      .innerJoin('groups as g', 'g.id', 'e.group_id')
      .selectAll('e')
      .select(GROUP_COLUMNS.map((column) => `g.${column} as g_${column}` as const))
      .where('e.id', '=', id as number),
  1,
);

/** An event and its group, or undefined when there is no such event. */
export async function findEventWithGroup(db: TenantDb, id: number): Promise<{ event: EventRow; group: GroupRow } | undefined> {
  const row = (await db.executeQuery<Record<string, unknown>>(eventWithGroupRows.compile(db, null, [id]))).rows[0];
  if (row === undefined) return undefined;
  const event: Record<string, unknown> = {};
  const group: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (column.startsWith('g_')) group[column.slice(2)] = value;
    else event[column] = value;
  }
  return { event: event as EventRow, group: group as GroupRow };
}

/**
 * The event read for a change of its participations, its row locked until the transaction ends:
 * on PostgreSQL with FOR UPDATE; on SQLite every transaction holds the write lock from its
 * start (BEGIN IMMEDIATE, db/sqlite.ts). Every writer of an event's seats and queue goes
 * through here first, so they take turns and each reads what the one before left.
 */
export async function lockEvent(db: TenantDb, id: number): Promise<EventRow | undefined> {
  let query = db.selectFrom('events').selectAll().where('id', '=', id);
  if (onPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** What is written of an event: its row without the derived and bookkeeping columns (`sequence` among them). */
export type EventValues = Omit<EventRow, 'id' | 'participants_count' | 'waitlist_count' | 'version' | 'created_at' | 'updated_at' | 'sequence'>;

export async function insertEvent(db: TenantDb, values: EventValues, now: string): Promise<EventRow> {
  return db
    .insertInto('events')
    .values({ ...values, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * `moved`: the change moves the event in time or place. Its iCalendar SEQUENCE then rises in the
 * same statement, so that no reader sees the new time with the old SEQUENCE (a calendar would keep
 * the old version of the event).
 */
export async function updateEvent(db: TenantDb, id: number, changes: Partial<EventValues>, now: string, { moved = false } = {}): Promise<EventRow> {
  return db
    .updateTable('events')
    .set({ ...changes, updated_at: now, version: nextVersion, ...(moved ? { sequence: nextSequence } : {}) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The derived counts: they change with the participations, not as a change
 * of the event, so neither `updated_at` nor the version (the ETag) moves.
 */
export async function setEventCounts(db: TenantDb, id: number, counts: { participants_count: number; waitlist_count: number }): Promise<void> {
  await db.updateTable('events').set(counts).where('id', '=', id).execute();
}

export async function deleteEvent(db: TenantDb, id: number): Promise<void> {
  await db.deleteFrom('events').where('id', '=', id).execute();
}

/** Whether the event has a pending, accepted or waitlisted participation. */
export async function hasLiveParticipations(db: TenantDb, eventId: number): Promise<boolean> {
  const row = await db
    .selectFrom('participations')
    .select('id')
    .where('event_id', '=', eventId)
    .where('state', 'in', ['pending', 'accepted', 'waitlisted'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Events of the group that have not ended at `now`: while there is one, the group cannot be deleted. */
export async function hasUpcomingEvents(db: TenantDb, groupId: number, now: string): Promise<boolean> {
  const row = await db.selectFrom('events').select('id').where('group_id', '=', groupId).where('ends_at', '>=', now).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * The group's ended events, deleted with the group (their participations go with them); returns
 * both, as their change records name them.
 */
export async function deleteEndedEvents(db: TenantDb, groupId: number, now: string) {
  const ended = await db.selectFrom('events').select('id').where('group_id', '=', groupId).where('ends_at', '<', now).execute();
  const eventIds = ended.map((row) => Number(row.id));
  const participations = await participationsOfEvents(db, eventIds);
  if (eventIds.length > 0) await db.deleteFrom('events').where('id', 'in', eventIds).execute();
  return { eventIds, participations };
}

/** The participations of these events, as their deletion must record them. */
export async function participationsOfEvents(db: TenantDb, eventIds: readonly number[]): Promise<{ id: number; person_id: number }[]> {
  if (eventIds.length === 0) return [];
  const rows = await db.selectFrom('participations').select(['id', 'person_id']).where('event_id', 'in', eventIds).execute();
  return rows.map((row) => ({ id: Number(row.id), person_id: Number(row.person_id) }));
}

export interface EventSelection {
  group?: { id: number; path: string; below: boolean };
  from?: string;
  to?: string;
  /** Sort key of the name text to find. */
  q?: string;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One page of the events the viewer sees, by `starts_at`, then id, after the row with key `after`. */
export async function listVisibleEvents(db: TenantDb, viewer: EventViewer, selection: EventSelection, after: SortKey | null, limit: number): Promise<EventRow[]> {
  let query = db
    .selectFrom('events as e')
    .innerJoin('groups as g', 'g.id', 'e.group_id')
    .selectAll('e')
    .where((eb) => eventVisibleTo(eb as EventQuery, viewer));
  const { group } = selection;
  if (group) query = group.below ? query.where(groupAmong('g', [group.path], [])) : query.where('e.group_id', '=', group.id);
  if (selection.from !== undefined) query = query.where('e.ends_at', '>=', selection.from);
  if (selection.to !== undefined) query = query.where('e.starts_at', '<=', selection.to);
  if (selection.q !== undefined) query = query.where(sql<SqlBool>`e.name_key like ${`%${escapeLike(selection.q)}%`} escape '\\'`);
  if (after) query = query.where(sql<SqlBool>`(e.starts_at, e.id) > (${after[0]}, ${after[1]})`);
  return query.orderBy('e.starts_at').orderBy('e.id').limit(limit + 1).execute();
}

export const eventSortKey = (row: EventRow): SortKey => [normaliseDbTimestamp(row.starts_at), Number(row.id)];

/** Whether one of `personIds` has a participation in the event, in any state (it makes the event visible to them). */
export async function isRegisteredAny(db: TenantDb, eventId: number, personIds: readonly number[]): Promise<boolean> {
  if (personIds.length === 0) return false;
  const row = await db.selectFrom('participations').select('id').where('event_id', '=', eventId).where('person_id', 'in', personIds).executeTakeFirst();
  return row !== undefined;
}

/** What the family's agenda lists (the agenda module decides who the family is and what is open to them). */
export interface AgendaSelection {
  /** The caller and their wards. */
  personIds: readonly number[];
  /** The groups at or above an active membership of one of them: their events are open to the family. */
  openGroupIds: readonly number[];
  /** Database timestamps: now, and the span the events must overlap. */
  now: string;
  from: string;
  to: string;
}

/**
 * The events overlapping the span that one of the family is registered for (any state but
 * cancelled), or that are open to them now: in a group at or above one of their memberships,
 * with registration open (from `registration_opens_at`, until `registration_closes_at` or else
 * the start; who-may-register.ts in the participations module says the same in code). By
 * `starts_at`, then id.
 */
export async function listAgendaEvents(db: TenantDb, selection: AgendaSelection, after: SortKey | null, limit: number): Promise<EventRow[]> {
  const { personIds, openGroupIds, now, from, to } = selection;
  let query = db
    .selectFrom('events as e')
    .selectAll('e')
    .where('e.ends_at', '>=', from)
    .where('e.starts_at', '<=', to)
    .where((eb) => {
      const registered = eb.exists(
        eb
          .selectFrom('participations as ap')
          .select(sql.lit(1).as('one'))
          .whereRef('ap.event_id', '=', 'e.id')
          .where('ap.person_id', 'in', [...personIds])
          .where('ap.state', '<>', 'cancelled'),
      );
      if (openGroupIds.length === 0) return registered;
      const open = eb.and([
        eb('e.group_id', 'in', [...openGroupIds]),
        eb.or([eb('e.registration_opens_at', 'is', null), eb('e.registration_opens_at', '<=', now)]),
        sql<SqlBool>`${now} < coalesce(e.registration_closes_at, e.starts_at)`,
      ]);
      return eb.or([registered, open]);
    });
  if (after) query = query.where(sql<SqlBool>`(e.starts_at, e.id) > (${after[0]}, ${after[1]})`);
  return query.orderBy('e.starts_at').orderBy('e.id').limit(limit + 1).execute();
}
