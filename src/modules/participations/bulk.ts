import type { ParticipationRole, TenantDb } from '../../db/types.js';
import { errors, type FieldErrors } from '../../errors.js';
import { hasProblems, inIndexOrder, itemRefusal, unseenPeople } from '../../http/bulk.js';
import { toDbTimestamp } from '../../lib/time.js';
import { actorOf, transact } from '../../recording/recorder.js';
import { managesLockedEvent, type FoundEvent } from '../events/rules.js';
import { seenPersonIds, type Access } from '../permissions/rules.js';
import { findParticipation, participationsByIds, type ParticipationItemRow } from './queries.js';
import { applyChange } from './rules.js';
import type { ParticipationUpdate } from './schemas.js';
import { lockEventOrThrow, SplitTheTurn, takePlaces } from './seats.js';
import { wakeAfterCommit, type Notifier } from '../notifications/rules.js';
import { tellStateNews, watchStates } from './news.js';

// The bulk forms of an event's participations (docs/api/events-and-registration.md, "Bulk forms"):
// managers only, all or nothing, each item by the rules of its single form, in the order given.

/** The fields of a participation a bulk change may carry; an error on another is the item's own. */
const CHANGE_FIELDS = ['state', 'role', 'notes', 'attended'];

/** Managers with `events:write` use the bulk forms; the request as a whole is refused with the single form's status. */
export function requireManager(found: Pick<FoundEvent, 'manager'>, tokenMayWrite: boolean): void {
  if (!tokenMayWrite) throw errors.abilityMissing();
  if (!found.manager) throw errors.unauthorized();
}

/** The rows of `ids`, in that order. */
async function inOrder(db: TenantDb, ids: readonly number[]): Promise<ParticipationItemRow[]> {
  const rows = new Map((await participationsByIds(db, ids)).map((row) => [Number(row.id), row]));
  return ids.map((id) => rows.get(id)!);
}

/**
 * POST /events/{id}/participations with `person_ids`: every person registered in the order given,
 * exactly as one registration after the other (accepted while there is room, then waitlisted, or
 * pending), in one transaction. A person not seen, registered already, or turned away as the
 * event is full: 422 keyed `person_ids.<i>`, and no one is registered.
 */
export async function registerMany(
  db: TenantDb,
  access: Access,
  found: FoundEvent,
  personIds: readonly number[],
  role: ParticipationRole,
  notifier: Notifier | null = null,
): Promise<ParticipationItemRow[]> {
  // Someone the caller does not see is `Person not found.` and nothing more; the others are placed
  // as if that item were not there, so that every refusal of the request is named at once.
  const seen = await seenPersonIds(db, access, personIds);
  const unseen = unseenPeople(personIds, seen);
  const at = toDbTimestamp(new Date());
  const tried = personIds.flatMap((personId, index) => (seen.has(personId) ? [{ index, registration: { personId, role, notes: null, at, actorId: actorOf(access) } }] : []));
  let ids: number[];
  let queued = 0;
  try {
    ids = await transact(db, actorOf(access), async (trx) => {
      watchStates(trx);
      const event = await lockEventOrThrow(trx, Number(found.event.id));
      if (!(await managesLockedEvent(trx, access, event))) throw errors.unauthorized();
      const placed = tried.length === 0 ? [] : await takePlaces(trx, event, tried.map((item) => item.registration), { lookUpRegistered: true });
      const problems: FieldErrors = { ...unseen };
      placed.forEach((outcome, i) => {
        const key = `person_ids.${tried[i]!.index}`;
        if ('refused' in outcome) Object.assign(problems, itemRefusal(outcome.refused, key, key, []));
      });
      if (hasProblems(problems)) throw errors.validation(inIndexOrder(problems));
      queued = await tellStateNews(trx, notifier, event);
      return placed.map((outcome) => (outcome as { id: number }).id);
    });
  } catch (error) {
    // A person erased since they were read: the insert failed as a whole; name who is gone.
    if (!(error instanceof SplitTheTurn)) throw error;
    const gone = unseenPeople(personIds, await seenPersonIds(db, access, personIds));
    throw hasProblems(gone) ? errors.validation(gone) : error;
  }
  if (notifier) wakeAfterCommit(notifier, queued);
  return inOrder(db, ids);
}

/** One item of PATCH /events/{id}/participations. */
export type ParticipationChange = ParticipationUpdate & { id: number };

/**
 * PATCH /events/{id}/participations: each participation of the event changed as its manager's
 * PATCH /participations/{id} would change it, in the order given, each seeing the earlier ones'
 * effects (a cancellation's promotion included), in one transaction. A participation of another
 * event is `Participation not found.`; any refusal is a 422 keyed by the item, and nothing changes.
 * After the last item, one mail per participation whose final state differs from its state
 * before the request, quoting `message`.
 */
export async function changeMany(
  db: TenantDb,
  access: Access,
  found: FoundEvent,
  changes: readonly ParticipationChange[],
  notifier: Notifier | null = null,
  message: string | null = null,
): Promise<ParticipationItemRow[]> {
  const eventId = Number(found.event.id);
  const queued = await transact(db, actorOf(access), async (trx) => {
    watchStates(trx);
    const locked = await lockEventOrThrow(trx, eventId);
    if (!(await managesLockedEvent(trx, access, locked))) throw errors.unauthorized();
    const problems: FieldErrors = {};
    for (const [i, { id, ...input }] of changes.entries()) {
      try {
        const current = await findParticipation(trx, id);
        if (!current || Number(current.event_id) !== eventId) throw errors.notFound('Participation');
        // The event's counts as the earlier items left them (it stays locked by this transaction).
        await applyChange(trx, await lockEventOrThrow(trx, eventId), current, input, true);
      } catch (error) {
        Object.assign(problems, itemRefusal(error, `participations.${i}`, `participations.${i}.id`, CHANGE_FIELDS));
      }
    }
    if (hasProblems(problems)) throw errors.validation(inIndexOrder(problems));
    return tellStateNews(trx, notifier, locked, { message });
  });
  if (notifier) wakeAfterCommit(notifier, queued);
  return inOrder(db, changes.map((change) => change.id));
}
