import type { ParticipationRole, ParticipationState, TenantDb, EventRow } from '../../db/types.js';
import { errors, ruleMessages } from '../../errors.js';
import { requireIfMatch } from '../../http/etag.js';
import { toDbTimestamp } from '../../lib/time.js';
import { managesGroup, managesLockedEvent, requireVisibleEvent, type FoundEvent, findEventWithGroup } from '../events/rules.js';
import { canSeePerson, householdOf, type Access, type Household } from '../permissions/rules.js';
import { acceptedFacts, countByStateAndRole, findParticipation, type ParticipationItemRow, personExists } from './queries.js';
import { changePlace, lockEventOrThrow } from './seats.js';
import { registerInTurn } from './registration-turns.js';
import { isSelfServiceTransition, isTransition } from './states.js';
import { actorOf, changedFields, noteUpdated, transact } from '../../recording/recorder.js';
import type { NewParticipation, ParticipationUpdate } from './schemas.js';
import { HIDDEN_NOTES } from './notes.js';
import { mayTakePartIn, registrationOpen } from './who-may-register.js';
import { addresseesOf, wakeAfterCommit, type Notifier } from '../notifications/rules.js';
import { tellStateNews, watchStates } from './news.js';

/** What the caller may do with an event's participations: as a manager, or for their household. */
export interface Rights {
  /** A manager of the event whose token carries `events:write`. */
  manages: boolean;
  household: Household;
}

export async function rightsOn(db: TenantDb, access: Access, found: Pick<FoundEvent, 'manager'>, tokenMayWrite: boolean): Promise<Rights> {
  return { manages: found.manager && tokenMayWrite, household: await householdOf(db, access) };
}

/**
 * POST /events/{id}/participations: the caller registers themself or a ward when that person may
 * take part and registration is open (who-may-register.ts); managers (with `events:write`) anyone
 * they see, in any role, also outside the window. Refusals come in this order: 404 (the person is
 * not seen), 403 (who may register whom), 422 closed, 422 already registered (seats.ts).
 * The seat, the queue or "full" is decided with the event's row locked (seats.ts), in this
 * instance's next turn of registrations for the event (registration-turns.ts).
 */
export async function register(
  db: TenantDb,
  access: Access,
  found: FoundEvent,
  tokenMayWrite: boolean,
  input: NewParticipation,
  notifier: Notifier | null = null,
): Promise<ParticipationItemRow> {
  const rights = await rightsOn(db, access, found, tokenMayWrite);
  const personId = input.person_id;
  if (!rights.household.personIds.includes(personId)) {
    const seen = (await personExists(db, personId)) && (await canSeePerson(db, access, personId));
    if (!seen) throw errors.notFound('Person');
    if (!tokenMayWrite) throw errors.abilityMissing();
    if (!rights.manages) throw errors.unauthorized();
  }
  const role: ParticipationRole = input.role ?? 'participant';
  if (role !== 'participant' && !rights.manages) throw errors.unauthorized();
  if (!rights.manages && !(await mayTakePartIn(db, access, personId, found.group.path))) throw errors.unauthorized();
  const now = toDbTimestamp(new Date());
  if (!rights.manages && !registrationOpen(found.event, now)) throw errors.ruleBroken('event', ruleMessages.registrationClosed);
  const registration = { personId, role, notes: input.notes ?? null, at: now, actorId: actorOf(access) };
  // Who the confirmation goes to is read now, before the turn holds the event's lock.
  const notice = notifier === null ? null : { notifier, addressee: (await addresseesOf(db, [personId])).get(personId) };
  return registerInTurn(db, Number(found.event.id), registration, notice);
}

/** A participation as a request found it, with the caller's relation to it. */
export interface FoundParticipation {
  participation: ParticipationItemRow;
  event: EventRow;
  /** `write` on the event's group. */
  manager: boolean;
  /** The caller is the person, or one of their guardians. */
  ownOrWard: boolean;
}

/**
 * A participation the caller sees: managers of its event see every one, the person and their
 * guardians their own, and whoever sees both the person and the event sees it in the person's
 * list (GET /people/{id}/participations). Everyone else: 404 `Participation not found.`
 */
export async function requireVisibleParticipation(db: TenantDb, access: Access, id: number | null): Promise<FoundParticipation> {
  const participation = id === null ? undefined : await findParticipation(db, id);
  if (!participation) throw errors.notFound('Participation');
  const { event, group } = (await findEventWithGroup(db, Number(participation.event_id)))!;
  const manager = managesGroup(access, group);
  const household = await householdOf(db, access);
  const ownOrWard = household.personIds.includes(Number(participation.person_id));
  const found = { participation, event, manager, ownOrWard };
  if (manager || ownOrWard) return found;
  if (await canSeePerson(db, access, Number(participation.person_id))) {
    const seesEvent = await requireVisibleEvent(db, access, Number(event.id)).then(() => true, () => false);
    if (seesEvent) return found;
  }
  throw errors.notFound('Participation');
}

/**
 * The state a change asks for from `from`: a transition nobody may make is 422; one only managers
 * may make is 403 for others.
 */
function nextState(from: ParticipationState, input: ParticipationUpdate, manages: boolean): ParticipationState {
  const to = input.state ?? from;
  if (to === from) return from;
  if (!isTransition(from, to)) throw errors.invalidField('state', ruleMessages.stateCannotChange(from, to));
  if (!manages && !isSelfServiceTransition(from, to)) throw errors.unauthorized();
  return to;
}

/**
 * PATCH /participations/{id}: managers (with `events:write`) make every transition of the state
 * machine and set role, notes and attended; the person and their guardians cancel and write
 * notes. A transition nobody may make is 422; one only managers may make is 403 for others.
 */
export async function changeParticipation(
  db: TenantDb,
  access: Access,
  found: FoundParticipation,
  tokenMayWrite: boolean,
  input: ParticipationUpdate,
  ifMatch: string | undefined,
  notifier: Notifier | null = null,
): Promise<ParticipationItemRow> {
  let manages = found.manager && tokenMayWrite;
  if (!manages && !found.ownOrWard) throw found.manager ? errors.abilityMissing() : errors.unauthorized();
  if (!manages && (input.role !== undefined || input.attended !== undefined)) throw errors.unauthorized();
  nextState(found.participation.state, input, manages);
  const id = Number(found.participation.id);
  const queued = await transact(db, actorOf(access), async (trx) => {
    watchStates(trx);
    const event = await lockEventOrThrow(trx, Number(found.event.id));
    if (manages && !(await managesLockedEvent(trx, access, event))) {
      // The event left the caller's groups since it was read: what is left is self-service.
      manages = false;
      if (!found.ownOrWard || input.role !== undefined || input.attended !== undefined) throw errors.unauthorized();
    }
    const current = await findParticipation(trx, id);
    if (!current) throw errors.notFound('Participation');
    requireIfMatch(ifMatch, current.version);
    await applyChange(trx, event, current, input, manages);
    // The person's own cancellation is confirmed like any change; a promotion it caused is told too.
    return tellStateNews(trx, notifier, event);
  });
  if (notifier) wakeAfterCommit(notifier, queued);
  return (await findParticipation(db, id))!;
}

/**
 * One participation's change, inside a transaction that locked its event (`event`, as it is now):
 * decided again on the row as it is now (the queue may have moved since it was first read), then
 * placed (seats.ts) and recorded. Refusals come before any write.
 */
export async function applyChange(trx: TenantDb, event: EventRow, current: ParticipationItemRow, input: ParticipationUpdate, manages: boolean): Promise<void> {
  const id = Number(current.id);
  const state = nextState(current.state, input, manages);
  const role = input.role ?? current.role;
  const attended = input.attended;
  if (attended !== undefined && attended !== null && state !== 'accepted') {
    throw errors.invalidField('attended', ruleMessages.attendedOnlyAccepted);
  }
  const other = {
    ...(input.notes !== undefined ? { notes: input.notes } : {}),
    ...(attended !== undefined ? { attended: attended === null ? null : attended ? (1 as const) : (0 as const) } : {}),
  };
  const placement = { id, role: current.role, state: current.state, waitlist_position: current.waitlist_position };
  await changePlace(trx, event, placement, { role, state }, other, toDbTimestamp(new Date()));
  const updated = (await findParticipation(trx, id))!;
  const changes = changedFields(recordedOf(current), recordedOf(updated));
  if (current.notes !== updated.notes) changes.notes = HIDDEN_NOTES;
  noteUpdated(trx, 'participation', id, changes, { personId: Number(current.person_id) });
}

/** GET /events/{id}/summary: the kitchen's and the lifeguard's numbers. */
export async function summaryOf(db: TenantDb, eventId: number) {
  const counts = await countByStateAndRole(db, eventId);
  const count = (state: ParticipationState, role?: ParticipationRole) =>
    counts.filter((row) => row.state === state && (role === undefined || row.role === role)).reduce((sum, row) => sum + Number(row.count), 0);
  const facts = await acceptedFacts(db, eventId);
  return {
    accepted: count('accepted', 'participant'),
    pending: count('pending'),
    waitlisted: count('waitlisted'),
    cancelled: count('cancelled'),
    rejected: count('rejected'),
    helpers: count('accepted', 'helper'),
    leaders: count('accepted', 'leader'),
    vegetarians: facts.vegetarians,
    non_swimmers: facts.nonSwimmers.map((person) => ({ id: Number(person.id), firstname: person.firstname, lastname: person.lastname })),
    attended: facts.attended,
  };
}

/**
 * What a participation's change records show of it: the queue position is derived, not recorded;
 * notes only as HIDDEN_NOTES (notes.ts).
 */
function recordedOf(row: ParticipationItemRow) {
  return { role: row.role, state: row.state, attended: row.attended === null ? null : Boolean(row.attended) };
}

// What other modules use of this module's queries: named here, so that its tables stay its own.
export { familyParticipations, listEventParticipations, listParticipationsOfPerson, listPersonParticipations, participantKey } from './queries.js';
