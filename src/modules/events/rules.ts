import { atLeast } from '../permissions/levels.js';
import type { TenantDb, GroupRow, EventRow } from '../../db/types.js';
import { errors, fieldMessages, ruleMessages, type FieldErrors } from '../../errors.js';
import { requireIfMatch } from '../../http/etag.js';
import type { CursorCodec, Page } from '../../http/paging.js';
import { sortKey } from '../../lib/sort-key.js';
import { normaliseDbTimestamp, toDbTimestamp } from '../../lib/time.js';
import { householdOf, type Access } from '../permissions/rules.js';
import { fillSeats, lockEventOrThrow } from '../participations/seats.js';
import { tellStateNews, watchStates } from '../participations/news.js';
import { wakeAfterCommit, type Notifier } from '../notifications/rules.js';
import {
  deleteEvent,
  eventSortKey,
  findEventWithGroup,
  hasLiveParticipations,
  insertEvent,
  listVisibleEvents,
  participationsOfEvents,
  updateEvent,
  type EventSelection,
  type EventValues,
  isRegisteredAny,
} from './queries.js';
import { actorOf, BOOKKEEPING, changedFields, noteCreated, noteDeleted, noteUpdated, transact } from '../../recording/recorder.js';
import { toApiEvent, type EventListFilters, type EventUpdate, type NewEvent } from './schemas.js';
import { findGroup, holdGroup } from '../groups/rules.js';
import type { EventViewer } from './visibility.js';

/** An event as a request found it: its group, and whether the caller manages it. */
export interface FoundEvent {
  event: EventRow;
  group: GroupRow;
  /** `write` on the event's group: the event's managers. */
  manager: boolean;
}

/** Who the caller is for events: the people they speak for, their groups, where they may read. */
export async function viewerOf(db: TenantDb, access: Access): Promise<EventViewer> {
  const household = await householdOf(db, access);
  return { personIds: household.personIds, groupIdsAtOrAbove: household.groupIdsAtOrAbove, readable: access.groupsWith('read') };
}

export const managesGroup = (access: Access, group: Pick<GroupRow, 'path'>): boolean => atLeast(access.on(group.path), 'write');

/**
 * Whether the caller manages the event as it is now, under its lock: a move of the event (or of
 * its group) that committed since the route read it may have taken it out of the caller's reach.
 * Groups check again after their lock the same way.
 */
export async function managesLockedEvent(trx: TenantDb, access: Access, event: Pick<EventRow, 'group_id'>): Promise<boolean> {
  const group = await findGroup(trx, Number(event.group_id));
  return group !== undefined && managesGroup(access, group);
}

async function requireGroupOf(db: TenantDb, groupId: number): Promise<GroupRow> {
  const group = await findGroup(db, groupId);
  if (!group) throw errors.notFound('Group');
  return group;
}

/**
 * An event the caller sees (docs/rules/visibility.md): `read` on its group; an active membership of
 * the caller or a ward in its group or below; a participation of the caller or a ward. Else 404
 * `Event not found.`, exactly as for an id that does not exist.
 */
export async function requireVisibleEvent(db: TenantDb, access: Access, id: number | null): Promise<FoundEvent> {
  const read = id === null ? undefined : await findEventWithGroup(db, id);
  if (!read) throw errors.notFound('Event');
  const { event, group } = read;
  const found = { event, group, manager: managesGroup(access, group) };
  if (atLeast(access.on(group.path), 'read')) return found;
  const viewer = await viewerOf(db, access);
  if (viewer.groupIdsAtOrAbove.includes(Number(group.id))) return found;
  if (await isRegisteredAny(db, Number(event.id), viewer.personIds)) return found;
  throw errors.notFound('Event');
}

/** An event the caller manages: 404 when they cannot see it, 403 when they only see it. */
export async function requireManagedEvent(db: TenantDb, access: Access, id: number | null): Promise<FoundEvent> {
  const found = await requireVisibleEvent(db, access, id);
  if (!found.manager) throw errors.unauthorized();
  return found;
}

const LIST = 'events';

export async function listEvents(db: TenantDb, access: Access, filters: EventListFilters, limit: number, cursors: CursorCodec): Promise<Page<EventRow>> {
  const after = filters.cursor === undefined ? null : cursors.decode(LIST, filters.cursor);
  const selection: EventSelection = {};
  if (filters.group_id !== undefined) {
    const group = await requireGroupOf(db, filters.group_id);
    selection.group = { id: Number(group.id), path: group.path, below: filters.below === true };
  }
  if (filters.from !== undefined) selection.from = toDbTimestamp(new Date(filters.from));
  if (filters.to !== undefined) selection.to = toDbTimestamp(new Date(filters.to));
  if (filters.q !== undefined) selection.q = sortKey(filters.q);
  const rows = await listVisibleEvents(db, await viewerOf(db, access), selection, after, limit);
  return cursors.page(LIST, rows, limit, eventSortKey);
}

const moment = (text: string | null | undefined): string | null | undefined =>
  text === undefined ? undefined : text === null ? null : toDbTimestamp(new Date(text));

/** Dates in order: ends_at not before starts_at, the registration window not closing before it opens. */
function datesProblems(values: Pick<EventValues, 'starts_at' | 'ends_at' | 'registration_opens_at' | 'registration_closes_at'>): FieldErrors | null {
  const problems: FieldErrors = {};
  if (values.ends_at < values.starts_at) problems.ends_at = [fieldMessages.dateAfterOrEqual('ends_at', 'starts_at')];
  const { registration_opens_at: opens, registration_closes_at: closes } = values;
  if (opens !== null && closes !== null && closes < opens) {
    problems.registration_closes_at = [fieldMessages.dateAfterOrEqual('registration_closes_at', 'registration_opens_at')];
  }
  return Object.keys(problems).length > 0 ? problems : null;
}

/** POST /events: a manager of the group (404 for a group that does not exist). */
export async function createEvent(db: TenantDb, access: Access, input: NewEvent): Promise<EventRow> {
  const group = await requireGroupOf(db, input.group_id);
  if (!managesGroup(access, group)) throw errors.unauthorized();
  const values: EventValues = {
    group_id: Number(group.id),
    name: input.name,
    name_key: sortKey(input.name),
    description: input.description ?? null,
    location: input.location ?? null,
    starts_at: moment(input.starts_at)!,
    ends_at: moment(input.ends_at)!,
    registration_opens_at: moment(input.registration_opens_at) ?? null,
    registration_closes_at: moment(input.registration_closes_at) ?? null,
    capacity: input.capacity ?? null,
    waiting_list: input.waiting_list === false ? 0 : 1,
    requires_approval: input.requires_approval === true ? 1 : 0,
  };
  const problems = datesProblems(values);
  if (problems) throw errors.validation(problems);
  return transact(db, actorOf(access), async (trx) => {
    // The group may have been deleted since it was read: hold it until the event is in.
    if (!(await holdGroup(trx, Number(group.id)))) throw errors.notFound('Group');
    const created = await insertEvent(trx, values, toDbTimestamp(new Date()));
    noteCreated(trx, 'event', Number(created.id));
    return created;
  });
}

/**
 * PATCH /events/{id} (managers): a move to another group needs `write` there too; `capacity` may
 * not drop below the accepted participants; a raised capacity gives the seats it adds to the first of the queue.
 */
export async function changeEvent(
  db: TenantDb,
  access: Access,
  found: FoundEvent,
  input: EventUpdate,
  ifMatch: string | undefined,
  notifier: Notifier | null = null,
): Promise<EventRow> {
  if (input.group_id !== undefined && input.group_id !== Number(found.event.group_id)) {
    const target = await requireGroupOf(db, input.group_id);
    if (!managesGroup(access, target)) throw errors.unauthorized();
  }
  let queued = 0;
  const changed = await transact(db, actorOf(access), async (trx) => {
    watchStates(trx);
    const current = await lockEventOrThrow(trx, Number(found.event.id));
    if (!(await managesLockedEvent(trx, access, current))) throw errors.unauthorized();
    requireIfMatch(ifMatch, current.version);
    const changes: Partial<EventValues> = {};
    if (input.group_id !== undefined && input.group_id !== Number(current.group_id)) {
      // The new group may have been deleted since it was read: hold it until the event is in it.
      if (!(await holdGroup(trx, input.group_id))) throw errors.notFound('Group');
    }
    if (input.group_id !== undefined) changes.group_id = input.group_id;
    if (input.name !== undefined) Object.assign(changes, { name: input.name, name_key: sortKey(input.name) });
    if (input.description !== undefined) changes.description = input.description;
    if (input.location !== undefined) changes.location = input.location;
    if (input.starts_at !== undefined) changes.starts_at = moment(input.starts_at)!;
    if (input.ends_at !== undefined) changes.ends_at = moment(input.ends_at)!;
    if (input.registration_opens_at !== undefined) changes.registration_opens_at = moment(input.registration_opens_at) ?? null;
    if (input.registration_closes_at !== undefined) changes.registration_closes_at = moment(input.registration_closes_at) ?? null;
    if (input.capacity !== undefined) changes.capacity = input.capacity;
    if (input.waiting_list !== undefined) changes.waiting_list = input.waiting_list ? 1 : 0;
    if (input.requires_approval !== undefined) changes.requires_approval = input.requires_approval ? 1 : 0;
    const stored = (value: string | null) => (value === null ? null : normaliseDbTimestamp(value));
    const problems = datesProblems({
      starts_at: changes.starts_at ?? normaliseDbTimestamp(current.starts_at),
      ends_at: changes.ends_at ?? normaliseDbTimestamp(current.ends_at),
      registration_opens_at: changes.registration_opens_at === undefined ? stored(current.registration_opens_at) : changes.registration_opens_at,
      registration_closes_at: changes.registration_closes_at === undefined ? stored(current.registration_closes_at) : changes.registration_closes_at,
    });
    if (problems) throw errors.validation(problems);
    if (changes.capacity !== undefined && changes.capacity !== null && changes.capacity < Number(current.participants_count)) {
      throw errors.invalidField('capacity', ruleMessages.capacityBelowAccepted);
    }
    const now = toDbTimestamp(new Date());
    // A new time or place raises the event's SEQUENCE (calendars take the new version) and is told to its participants.
    const moved = movedInTimeOrPlace(current, { ...current, ...changes });
    const updated = await updateEvent(trx, Number(current.id), changes, now, { moved });
    // The counts are derived (they move with the participations): not part of the event's record.
    noteUpdated(trx, 'event', Number(current.id), changedFields(toApiEvent(current), toApiEvent(updated), [...BOOKKEEPING, 'participants_count', 'waitlist_count']));
    // Only a raised capacity (or none any more) moves the queue (docs/rules/waiting-list.md): a
    // lowered or unchanged one leaves waiting those a manager keeps waiting while seats are free.
    const freed = seatsAdded(current.capacity, changes.capacity);
    let result = updated;
    if (freed > 0) {
      const counts = { participants_count: Number(updated.participants_count), waitlist_count: Number(updated.waitlist_count) };
      await fillSeats(trx, updated, counts, freed, now);
      result = { ...updated, ...counts };
    }
    // Those promoted by a raised capacity hear of it; a new date or place is told to every live participation.
    queued = await tellStateNews(trx, notifier, updated, { moved });
    return result;
  });
  if (notifier) wakeAfterCommit(notifier, queued);
  return changed;
}

/** The change of an event that its participants are told of: `starts_at`, `ends_at` or `location`. */
const movedInTimeOrPlace = (before: EventRow, after: EventRow): boolean =>
  normaliseDbTimestamp(before.starts_at) !== normaliseDbTimestamp(after.starts_at) ||
  normaliseDbTimestamp(before.ends_at) !== normaliseDbTimestamp(after.ends_at) ||
  (before.location ?? null) !== (after.location ?? null);

/** The seats a PATCH's `capacity` (undefined: not given; null: unlimited) adds: 0 unless it raises the event's. */
function seatsAdded(before: number | null, after: number | null | undefined): number {
  if (after === undefined || before === null) return 0;
  return after === null ? Number.POSITIVE_INFINITY : Math.max(0, after - Number(before));
}

/** DELETE /events/{id} (managers): not while a participation is pending, accepted or waitlisted. */
export async function removeEvent(db: TenantDb, access: Access, found: FoundEvent, ifMatch: string | undefined): Promise<void> {
  await transact(db, actorOf(access), async (trx) => {
    const current = await lockEventOrThrow(trx, Number(found.event.id));
    if (!(await managesLockedEvent(trx, access, current))) throw errors.unauthorized();
    requireIfMatch(ifMatch, current.version);
    if (await hasLiveParticipations(trx, Number(current.id))) throw errors.ruleBroken('event', ruleMessages.eventHasParticipants);
    // Its cancelled and rejected participations go with it.
    for (const participation of await participationsOfEvents(trx, [Number(current.id)])) {
      noteDeleted(trx, 'participation', participation.id, { personId: participation.person_id });
    }
    await deleteEvent(trx, Number(current.id));
    noteDeleted(trx, 'event', Number(current.id));
  });
}

// What other modules use of this module's queries: named here, so that its tables stay its own.
export {
  eventSortKey,
  findEventWithGroup,
  listAgendaEvents,
  listVisibleEvents,
  type AgendaSelection,
} from './queries.js';
