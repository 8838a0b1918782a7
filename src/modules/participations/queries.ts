import { sql, type Selectable } from 'kysely';
import type { ParticipationRole, ParticipationState, ParticipationsTable, TenantDb } from '../../db/types.js';
import { binaryText } from '../../db/collation.js';
import type { SortKey } from '../../http/paging.js';
import { eventVisibleTo, type EventQuery, type EventViewer } from '../events/visibility.js';

export type ParticipationRow = Selectable<ParticipationsTable>;

/** A participation with the names of its person, as every answer shows it. */
export interface ParticipationItemRow extends ParticipationRow {
  p_firstname: string;
  p_lastname: string;
}

const nextVersion = sql<number>`version + 1`;

function withPerson(db: TenantDb) {
  return db
    .selectFrom('participations as pa')
    .innerJoin('users as p', 'p.id', 'pa.person_id')
    .selectAll('pa')
    .select(['p.firstname as p_firstname', 'p.lastname as p_lastname']);
}

export const findParticipation = (db: TenantDb, id: number): Promise<ParticipationItemRow | undefined> =>
  withPerson(db).where('pa.id', '=', id).executeTakeFirst();

/** Participations by id, with their persons' names (in no particular order). */
export const participationsByIds = async (db: TenantDb, ids: readonly number[]): Promise<ParticipationItemRow[]> =>
  ids.length === 0 ? [] : withPerson(db).where('pa.id', 'in', ids).execute();

/** Which of `personIds` have a live (pending, accepted or waitlisted) participation in the event. */
export async function livePersonIds(db: TenantDb, eventId: number, personIds: readonly number[]): Promise<Set<number>> {
  const rows = await db
    .selectFrom('participations')
    .select('person_id')
    .where('event_id', '=', eventId)
    .where('person_id', 'in', personIds)
    .where('state', 'in', ['pending', 'accepted', 'waitlisted'])
    .execute();
  return new Set(rows.map((row) => Number(row.person_id)));
}

/** A new participation's row; `at` is its `created_at` and `updated_at`. */
export type NewParticipationRow = Pick<ParticipationRow, 'event_id' | 'person_id' | 'role' | 'state' | 'waitlist_position' | 'notes'> & { at: string };

/**
 * Inserts live participations of one event in one statement: their ids by person (a person has
 * one live participation per event, so the mapping does not rest on the order of RETURNING).
 */
export async function insertParticipations(db: TenantDb, rows: readonly NewParticipationRow[]): Promise<Map<number, number>> {
  if (rows.length === 0) return new Map();
  const inserted = await db
    .insertInto('participations')
    .values(rows.map(({ at, ...values }) => ({ ...values, attended: null, created_at: at, updated_at: at })))
    .returning(['id', 'person_id'])
    .execute();
  return new Map(inserted.map((row) => [Number(row.person_id), Number(row.id)]));
}

export type ParticipationChanges = Partial<Pick<ParticipationRow, 'role' | 'state' | 'waitlist_position' | 'attended' | 'notes'>>;

export async function updateParticipation(db: TenantDb, id: number, changes: ParticipationChanges, now: string): Promise<void> {
  await db.updateTable('participations').set({ ...changes, updated_at: now, version: nextVersion }).where('id', '=', id).execute();
}

/**
 * The queue moves up by `by` behind `position`: a derived value, so the rows keep their version
 * and `updated_at` (docs/decisions/events-and-registration.md).
 */
export async function moveQueueUp(db: TenantDb, eventId: number, position: number, by: number): Promise<void> {
  await db
    .updateTable('participations')
    .set({ waitlist_position: sql<number>`waitlist_position - ${by}` })
    .where('event_id', '=', eventId)
    .where('state', '=', 'waitlisted')
    .where('waitlist_position', '>', position)
    .execute();
}

/** The queue after position `after`, in order, `size` at most: whom freed seats go to. */
export async function queueAfter(db: TenantDb, eventId: number, after: number, size: number): Promise<QueuedParticipation[]> {
  const rows = await db
    .selectFrom('participations')
    .select(['id', 'person_id', 'role', 'waitlist_position'])
    .where('event_id', '=', eventId)
    .where('state', '=', 'waitlisted')
    .where('waitlist_position', '>', after)
    .orderBy('waitlist_position')
    .limit(size)
    .execute();
  return rows.map((row) => ({ id: Number(row.id), person_id: Number(row.person_id), role: row.role, waitlist_position: Number(row.waitlist_position) }));
}

export interface QueuedParticipation {
  id: number;
  person_id: number;
  role: ParticipationRole;
  waitlist_position: number;
}

/** These waitlisted participations are accepted (each a change of its own row). */
export async function acceptQueued(db: TenantDb, ids: readonly number[], now: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('participations')
    .set({ state: 'accepted', waitlist_position: null, updated_at: now, version: nextVersion })
    .where('id', 'in', [...ids])
    .execute();
}

/** The live participations of a person (erasure frees their seats and places). */
/** A person's live participations (pending, accepted, waitlisted), by event; of one event with `eventId`. */
export const liveParticipationsOf = (db: TenantDb, personId: number, eventId?: number) =>
  db
    .selectFrom('participations')
    .selectAll()
    .where('person_id', '=', personId)
    .where('state', 'in', ['pending', 'accepted', 'waitlisted'])
    .$if(eventId !== undefined, (query) => query.where('event_id', '=', eventId!))
    .orderBy('event_id')
    .execute();

export const deleteParticipation = async (db: TenantDb, id: number): Promise<void> => {
  await db.deleteFrom('participations').where('id', '=', id).execute();
};

export interface ParticipationFilters {
  state?: ParticipationState;
  role?: ParticipationRole;
  /** Only these people's participations (a non-manager sees their own and their wards'). */
  personIds?: number[];
}

/** The orders of an event's participant list: by state (the default), by name, in the order of registration. */
export type ParticipantOrder = 'state' | 'name' | 'created';

/** accepted, pending, waitlisted, rejected, cancelled: the participant list's order of states. */
const STATE_RANK = ['accepted', 'pending', 'waitlisted', 'rejected', 'cancelled'] as const;
const stateRank = sql<number>`case pa.state when 'accepted' then 0 when 'pending' then 1 when 'waitlisted' then 2 when 'rejected' then 3 else 4 end`;

/** The list's order as SQL expressions: the keyset compares the same tuple (participantKey). */
function participantOrder(db: TenantDb, order: ParticipantOrder) {
  const name = [sql.ref('p.lastname_key'), sql.ref('p.firstname_key'), binaryText(db, 'p.lastname'), binaryText(db, 'p.firstname')];
  if (order === 'created') return [sql.ref('pa.id')];
  if (order === 'name') return [...name, sql.ref('pa.id')];
  // The waiting list in its order; the other states have no position (0).
  return [stateRank, sql`coalesce(pa.waitlist_position, 0)`, ...name, sql.ref('pa.id')];
}

/** A row's place in the list's order: what its cursor holds. */
export function participantKey(row: EventParticipationRow, order: ParticipantOrder): SortKey {
  const name = [row.p_lastname_key, row.p_firstname_key, row.p_lastname, row.p_firstname];
  if (order === 'created') return [Number(row.id)];
  if (order === 'name') return [...name, Number(row.id)];
  return [STATE_RANK.indexOf(row.state), row.waitlist_position === null ? 0 : Number(row.waitlist_position), ...name, Number(row.id)];
}

/** An event's participations in the list's order (keyset after `after`), with the columns of the CSV too. */
export function listEventParticipations(db: TenantDb, eventId: number, filters: ParticipationFilters, order: ParticipantOrder, after: SortKey | null, limit: number) {
  let query = db
    .selectFrom('participations as pa')
    .innerJoin('users as p', 'p.id', 'pa.person_id')
    .selectAll('pa')
    .select([
      'p.firstname as p_firstname',
      'p.lastname as p_lastname',
      'p.firstname_key as p_firstname_key',
      'p.lastname_key as p_lastname_key',
      'p.is_vegetarian as p_is_vegetarian',
      'p.can_swimm as p_can_swimm',
      'p.birthday as p_birthday',
      'p.email as p_email',
      'p.phonenumber as p_phonenumber',
      'p.phonenumber_mobile as p_phonenumber_mobile',
    ])
    .where('pa.event_id', '=', eventId);
  if (filters.state !== undefined) query = query.where('pa.state', '=', filters.state);
  if (filters.role !== undefined) query = query.where('pa.role', '=', filters.role);
  if (filters.personIds !== undefined) query = query.where('pa.person_id', 'in', filters.personIds.length > 0 ? filters.personIds : [0]);
  const columns = participantOrder(db, order);
  if (after !== null) query = query.where(sql<boolean>`(${sql.join(columns)}) > (${sql.join(after as unknown[])})`);
  for (const column of columns) query = query.orderBy(column);
  return query.limit(limit + 1).execute();
}
export type EventParticipationRow = Awaited<ReturnType<typeof listEventParticipations>>[number];

/** A person's participations in the events the viewer sees, by id (keyset), with the event's group, name and times. */
export function listPersonParticipations(db: TenantDb, personId: number, viewer: EventViewer, afterId: number | null, limit: number) {
  let query = withPerson(db)
    .innerJoin('events as e', 'e.id', 'pa.event_id')
    .innerJoin('groups as g', 'g.id', 'e.group_id')
    .select(['g.path as g_path', 'e.name as event_name', 'e.starts_at as event_starts_at', 'e.ends_at as event_ends_at'])
    .where('pa.person_id', '=', personId)
    .where((eb) => eventVisibleTo(eb as unknown as EventQuery, viewer));
  if (afterId !== null) query = query.where('pa.id', '>', afterId);
  return query.orderBy('pa.id').limit(limit + 1).execute();
}

/** Every participation of a person with its event's name, by id (the person's own data export). */
export const listParticipationsOfPerson = (db: TenantDb, personId: number) =>
  withPerson(db).innerJoin('events as e', 'e.id', 'pa.event_id').select('e.name as event_name').where('pa.person_id', '=', personId).orderBy('pa.id').execute();

/** Counts by state and role, for the summary. */
export const countByStateAndRole = (db: TenantDb, eventId: number) =>
  db
    .selectFrom('participations')
    .select(['state', 'role', sql<number>`count(*)`.as('count')])
    .where('event_id', '=', eventId)
    .groupBy(['state', 'role'])
    .execute();

/** Over the accepted participations (every role): the kitchen's and the lifeguard's numbers. */
export async function acceptedFacts(db: TenantDb, eventId: number) {
  const accepted = db
    .selectFrom('participations as pa')
    .innerJoin('users as p', 'p.id', 'pa.person_id')
    .where('pa.event_id', '=', eventId)
    .where('pa.state', '=', 'accepted');
  const counts = await accepted
    .select([
      sql<number>`coalesce(sum(case when p.is_vegetarian = ${sql.lit(true)} then 1 else 0 end), 0)`.as('vegetarians'),
      sql<number>`coalesce(sum(case when pa.attended = ${sql.lit(true)} then 1 else 0 end), 0)`.as('attended'),
    ])
    .executeTakeFirstOrThrow();
  const nonSwimmers = await accepted
    .select(['p.id', 'p.firstname', 'p.lastname'])
    .where(sql<boolean>`p.can_swimm = ${sql.lit(false)}`)
    .orderBy('p.lastname_key')
    .orderBy('p.firstname_key')
    .orderBy(binaryText(db, 'p.lastname'))
    .orderBy('p.id')
    .execute();
  return { vegetarians: Number(counts.vegetarians), attended: Number(counts.attended), nonSwimmers };
}

/** Whether a person with this id exists (a registration for nobody is 404, as for someone unseen). */
export const personExists = async (db: TenantDb, id: number): Promise<boolean> =>
  (await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

/** The participations of `personIds` in these events, in any state but cancelled. */
export async function familyParticipations(db: TenantDb, eventIds: readonly number[], personIds: readonly number[]) {
  if (eventIds.length === 0 || personIds.length === 0) return [];
  return db
    .selectFrom('participations')
    .select(['id', 'event_id', 'person_id', 'state', 'waitlist_position'])
    .where('event_id', 'in', [...eventIds])
    .where('person_id', 'in', [...personIds])
    .where('state', '<>', 'cancelled')
    .execute();
}

/** The state and place of these participations (what a change's notifications tell). */
export const statesByIds = async (db: TenantDb, ids: readonly number[]) =>
  ids.length === 0
    ? []
    : db.selectFrom('participations').select(['id', 'event_id', 'person_id', 'state', 'waitlist_position']).where('id', 'in', [...ids]).execute();

/** The pending, accepted and waitlisted participations of an event: those told when it moves. */
export const liveStatesOfEvent = (db: TenantDb, eventId: number) =>
  db
    .selectFrom('participations')
    .select(['id', 'person_id', 'state', 'waitlist_position'])
    .where('event_id', '=', eventId)
    .where('state', 'in', ['pending', 'accepted', 'waitlisted'])
    .orderBy('id')
    .execute();
