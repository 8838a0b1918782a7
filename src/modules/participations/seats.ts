import type { ParticipationRole, ParticipationState, TenantDb, EventRow } from '../../db/types.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.js';
import { errors, ruleMessages, type ApiError } from '../../errors.js';
import {
  acceptQueued,
  deleteParticipation,
  insertParticipations,
  liveParticipationsOf,
  livePersonIds,
  moveQueueUp,
  queueAfter,
  updateParticipation,
  type NewParticipationRow,
  type ParticipationChanges,
  type QueuedParticipation,
} from './queries.js';
import { noteCreated, noteUpdated } from '../../recording/recorder.js';
import { registrationState, seatsLeft, takesSeat } from './states.js';
import { lockEventRow, writeSeatCounts } from '../events/seat-counts.js';
import { noteStateBefore } from './news.js';

/**
 * Seats and the waiting list (docs/rules/waiting-list.md). Every function here runs inside a
 * transaction that locked the event's row first (lockEvent), so the counts it reads are the latest
 * and no other writer changes them until it commits: accepted participants never exceed `capacity`,
 * and waitlist positions stay 1..n without gaps or repeats, however many requests arrive at once.
 */

interface Counts {
  participants_count: number;
  waitlist_count: number;
}

const countsOf = (event: EventRow): Counts => ({
  participants_count: Number(event.participants_count),
  waitlist_count: Number(event.waitlist_count),
});

/** The event, locked for this transaction, or 404. */
export async function lockEventOrThrow(trx: TenantDb, eventId: number): Promise<EventRow> {
  const event = await lockEventRow(trx, eventId);
  if (!event) throw errors.notFound('Event');
  return event;
}

/** A registration that passed the request's checks, to be placed with the event's row locked. */
export interface Registration {
  personId: number;
  role: ParticipationRole;
  notes: string | null;
  /** When it was asked for: the participation's `created_at`. */
  at: string;
  /** Who asked: the change record's actor (null for the command line). */
  actorId: number | null;
}

/** What became of one registration: its participation (id, state, place in the queue), or the 422 that refused it. */
export type Placed = { id: number; state: ParticipationState; waitlistPosition: number | null } | { refused: ApiError };

/**
 * A turn's insert failed for one of its registrations (which, the database does not say).
 * `someoneRegistered`: a person of it is registered already; take the turn again, looking them
 * up first. Otherwise (a person erased meanwhile): take each registration alone.
 */
export class SplitTheTurn extends Error {
  override name = 'SplitTheTurn';
  constructor(readonly someoneRegistered: boolean) {
    super(someoneRegistered ? 'a person of the turn is registered already' : 'a person of the turn is gone');
  }
}

/**
 * New registrations, in the order given: each pending, accepted, or at the end of the queue as
 * the ones before it left the event; 422 "already registered" for one whose person is registered
 * already (pending, accepted or waitlisted, before this turn or earlier in it), else 422 `full`
 * when the event is full.
 *
 * A person registered before the turn is found by the insert itself (the partial unique index
 * participations_live_unique, the table's only unique index): one round trip less while the
 * event's row is locked, in the usual case that no one is. The insert then fails as a whole; so
 * does it for a person erased since their request read them (the foreign key). Alone, a
 * registration hears 422 or 404; in a turn of several, SplitTheTurn tells registration-turns.ts
 * to take the turn again with `lookUpRegistered` (the people registered already read first), or,
 * for a person gone, each registration alone, so that each gets the answer it would have got
 * alone. Those refused as full are looked up either way, to tell "registered" from "full".
 */
export async function takePlaces(
  trx: TenantDb,
  event: EventRow,
  registrations: readonly Registration[],
  { lookUpRegistered = false }: { lookUpRegistered?: boolean } = {},
): Promise<Placed[]> {
  const eventId = Number(event.id);
  const counts = countsOf(event);
  const rules = { capacity: event.capacity === null ? null : Number(event.capacity), waiting_list: Boolean(event.waiting_list), requires_approval: Boolean(event.requires_approval) };
  const rows: NewParticipationRow[] = [];
  const positions = new Map<number, number>();
  const registeredBefore = lookUpRegistered ? await livePersonIds(trx, eventId, registrations.map((r) => r.personId)) : new Set<number>();
  const placedInTurn = new Set<number>();
  const states = registrations.map((registration) => {
    const { personId, role, notes, at } = registration;
    // As one after the other: a person placed earlier in the turn is registered.
    if (registeredBefore.has(personId) || placedInTurn.has(personId)) return 'registered';
    const state = registrationState({ ...rules, participants_count: counts.participants_count }, role);
    if (state === 'full') return state;
    if (takesSeat({ role, state })) counts.participants_count++;
    if (state === 'waitlisted') counts.waitlist_count++;
    placedInTurn.add(personId);
    if (state === 'waitlisted') positions.set(personId, counts.waitlist_count);
    rows.push({ event_id: eventId, person_id: personId, role, state, waitlist_position: state === 'waitlisted' ? counts.waitlist_count : null, notes, at });
    return state;
  });
  const alreadyRegistered = () => errors.invalidField('person_id', ruleMessages.alreadyRegistered);
  const turnedAway = lookUpRegistered ? [] : registrations.filter((_, i) => states[i] === 'full').map((r) => r.personId);
  const registered = turnedAway.length === 0 ? registeredBefore : await livePersonIds(trx, eventId, turnedAway);
  const ids = await insertParticipations(trx, rows).catch((error: unknown) => {
    const someoneRegistered = isUniqueViolation(error, 'participations_live_unique');
    const own = someoneRegistered ? alreadyRegistered() : isForeignKeyViolation(error) ? errors.notFound('Person') : null;
    if (own === null) throw error;
    // The event is locked, so what failed is a person: registered already, or erased since the
    // request read them.
    throw registrations.length === 1 ? own : new SplitTheTurn(someoneRegistered && !lookUpRegistered);
  });
  if (rows.length > 0) await writeSeatCounts(trx, eventId, counts);
  return registrations.map((registration, i) => {
    if (states[i] === 'registered') return { refused: alreadyRegistered() };
    if (states[i] === 'full') {
      return { refused: registered.has(registration.personId) ? alreadyRegistered() : errors.ruleBroken('event', ruleMessages.eventFull) };
    }
    const id = ids.get(registration.personId)!;
    noteCreated(trx, 'participation', id, { personId: registration.personId, actorId: registration.actorId });
    noteStateBefore(trx, id, null);
    return { id, state: states[i] as ParticipationState, waitlistPosition: positions.get(registration.personId) ?? null };
  });
}

export interface Placement {
  id: number;
  role: ParticipationRole;
  state: ParticipationState;
  waitlist_position: number | null;
}

/**
 * A participation changes role or state (the transition was allowed by the caller's rights):
 * a seat needs room, joining the queue needs a waiting list (and puts the person at its end, even
 * with seats free: `pending -> waitlisted` is a manager's choice), leaving it moves those behind
 * up, and a seat given up goes to the first of the queue.
 */
export async function changePlace(
  trx: TenantDb,
  event: EventRow,
  current: Placement,
  next: { role: ParticipationRole; state: ParticipationState },
  other: Pick<ParticipationChanges, 'attended' | 'notes'>,
  now: string,
): Promise<void> {
  const eventId = Number(event.id);
  const counts = countsOf(event);
  const wasSeat = takesSeat(current);
  const isSeat = takesSeat(next);
  if (!wasSeat && isSeat && seatsLeft({ capacity: event.capacity, participants_count: counts.participants_count }) < 1) {
    throw errors.ruleBroken('event', ruleMessages.eventFull);
  }
  const changes: ParticipationChanges = { ...other, role: next.role, state: next.state };
  const wasQueued = current.state === 'waitlisted';
  const isQueued = next.state === 'waitlisted';
  if (isQueued && !wasQueued) {
    if (!event.waiting_list) throw errors.invalidField('state', ruleMessages.eventHasNoWaitingList);
    counts.waitlist_count++;
    changes.waitlist_position = counts.waitlist_count;
  }
  if (wasQueued && !isQueued) {
    await moveQueueUp(trx, eventId, Number(current.waitlist_position), 1);
    counts.waitlist_count--;
    changes.waitlist_position = null;
  }
  counts.participants_count += Number(isSeat) - Number(wasSeat);
  if (next.state !== current.state) noteStateBefore(trx, current.id, current.state);
  await updateParticipation(trx, current.id, changes, now);
  // Only a seat given up moves the queue: a manager may keep someone waiting while seats are free.
  if (wasSeat && !isSeat) await fillSeats(trx, event, counts, 1, now);
  else await writeSeatCounts(trx, eventId, counts);
}

/** Rows of the queue read at a time beyond the seats to fill: the helpers and leaders among them. */
const QUEUE_SLACK = 8;

/**
 * Seats were given up (a cancellation or the erasure of an accepted participant frees one, a raised
 * capacity as many as it grew; `freed`): the front of the queue takes them, and the rest move up.
 * Only the seats freed, and only while free: others a manager keeps waiting while seats are free
 * stay waiting. Participants take the seats in queue order; a helper or leader in the queue (a
 * manager's choice, or a role changed while waiting) takes none, so one ahead of the last
 * participant accepted is accepted with them, and the count of participants grows by the
 * participants alone. The walk stops when the seats are taken. Writes the event's counts.
 */
export async function fillSeats(trx: TenantDb, event: Pick<EventRow, 'id' | 'capacity'>, counts: Counts, freed: number, now: string): Promise<void> {
  const eventId = Number(event.id);
  let seats = Math.min(freed, seatsLeft({ capacity: event.capacity === null ? null : Number(event.capacity), participants_count: counts.participants_count }));
  const accepted: QueuedParticipation[] = [];
  let after = 0;
  walk: while (seats > 0 && accepted.length < counts.waitlist_count) {
    const size = Math.min(seats, counts.waitlist_count - accepted.length) + QUEUE_SLACK;
    const front = await queueAfter(trx, eventId, after, size);
    for (const participation of front) {
      if (seats === 0) break walk;
      if (participation.role === 'participant') seats--;
      accepted.push(participation);
      after = participation.waitlist_position;
    }
    if (front.length < size) break;
  }
  if (accepted.length > 0) {
    await acceptQueued(trx, accepted.map((participation) => participation.id), now);
    for (const participation of accepted) {
      noteUpdated(trx, 'participation', participation.id, { state: ['waitlisted', 'accepted'] }, { personId: participation.person_id });
      noteStateBefore(trx, participation.id, 'waitlisted');
    }
    // The accepted are the first of the queue: those behind them move up by as many.
    await moveQueueUp(trx, eventId, 0, accepted.length);
    counts.participants_count += accepted.filter((participation) => participation.role === 'participant').length;
    counts.waitlist_count -= accepted.length;
  }
  await writeSeatCounts(trx, eventId, counts);
}

/**
 * Erasure (docs/rules/erasure.md): the person's participations are deleted, each seat and place
 * freed exactly as a cancellation frees it, with the same promotion.
 */
export async function releasePlacesOf(trx: TenantDb, personId: number, now: string): Promise<void> {
  const eventIds = [...new Set((await liveParticipationsOf(trx, personId)).map((participation) => Number(participation.event_id)))];
  for (const eventId of eventIds) {
    // The event first, then the participation as it is under that lock: a cancellation or a
    // promotion that committed since the list was read (they lock the event only) is seen, so a
    // seat is never freed twice nor a place in the queue given up that was no longer held.
    const event = await lockEventRow(trx, eventId);
    const [participation] = event ? await liveParticipationsOf(trx, personId, eventId) : [];
    if (!event || !participation) continue;
    const counts = countsOf(event);
    if (participation.state === 'waitlisted') {
      await moveQueueUp(trx, Number(event.id), Number(participation.waitlist_position), 1);
      counts.waitlist_count--;
    }
    await deleteParticipation(trx, Number(participation.id));
    // Only a seat given up moves the queue, as in changePlace.
    if (takesSeat(participation)) {
      counts.participants_count--;
      await fillSeats(trx, event, counts, 1, now);
    } else {
      await writeSeatCounts(trx, Number(event.id), counts);
    }
  }
}
