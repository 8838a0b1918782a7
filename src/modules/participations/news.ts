import type { EventRow, ParticipationState, TenantDb } from '../../db/types.js';
import { queueParticipationNews, type Notifier, type ParticipationNews } from '../notifications/rules.js';
import { lockEventRow } from '../events/seat-counts.js';
import { liveStatesOfEvent, statesByIds } from './queries.js';

/**
 * Which participations a change told about (docs/api/messages-and-notifications.md): a transaction
 * that will write notifications watches itself (watchStates); every state change in it notes the
 * state the participation had before (seats.ts), however deep in the seats and queue it happens
 * (a promotion from the waiting list included); at its end tellStateNews mails each participation
 * whose final state differs from its state before, once. A transaction that watches nothing (an
 * import, the command line) sends nothing.
 */
const watches = new WeakMap<object, Map<number, ParticipationState | null>>();

export function watchStates(trx: TenantDb): void {
  if (!watches.has(trx)) watches.set(trx, new Map());
}

/** A participation's state changes in `trx`; `before` is null for a new one. Only the first state before counts. */
export function noteStateBefore(trx: TenantDb, id: number, before: ParticipationState | null): void {
  const watch = watches.get(trx);
  if (watch && !watch.has(id)) watch.set(id, before);
}

const causeOf = (before: ParticipationState | null, after: ParticipationState): ParticipationNews['cause'] =>
  before === null ? 'registered' : before === 'waitlisted' && after === 'accepted' ? 'promoted' : 'changed';

/**
 * The end of a watched change, still inside its transaction: the mails of every participation whose
 * state the change moved (in `event`, or in any event: an erasure frees seats in several), and with
 * `moved` (the event's date or place changed) of every live one of `event`. Returns how many mails
 * were queued; wake the worker after the commit.
 */
export async function tellStateNews(
  trx: TenantDb,
  notifier: Notifier | null,
  event: EventRow | null,
  options: { message?: string | null; moved?: boolean } = {},
): Promise<number> {
  const watch = watches.get(trx);
  watches.delete(trx);
  if (notifier === null) return 0;
  const newsByEvent = new Map<number, ParticipationNews[]>();
  const told = new Set<number>();
  const add = (eventId: number, item: ParticipationNews) => {
    const list = newsByEvent.get(eventId) ?? [];
    list.push(item);
    newsByEvent.set(eventId, list);
  };
  const moved = options.moved === true && event !== null;
  if (watch && watch.size > 0) {
    for (const row of await statesByIds(trx, [...watch.keys()])) {
      const before = watch.get(Number(row.id)) ?? null;
      if (row.state === before) continue;
      told.add(Number(row.id));
      add(Number(row.event_id), {
        participationId: Number(row.id),
        personId: Number(row.person_id),
        state: row.state,
        waitlistPosition: row.waitlist_position === null ? null : Number(row.waitlist_position),
        cause: causeOf(before, row.state),
        alsoMoved: moved && Number(row.event_id) === Number(event.id),
      });
    }
  }
  if (moved) {
    for (const row of await liveStatesOfEvent(trx, Number(event.id))) {
      if (told.has(Number(row.id))) continue;
      add(Number(event.id), {
        participationId: Number(row.id),
        personId: Number(row.person_id),
        state: row.state,
        waitlistPosition: row.waitlist_position === null ? null : Number(row.waitlist_position),
        cause: 'moved',
      });
    }
  }
  let queued = 0;
  for (const [eventId, news] of newsByEvent) {
    // Another event's row (an erasure frees seats in several) is already locked by the change.
    const facts = event !== null && Number(event.id) === eventId ? event : await lockEventRow(trx, eventId);
    if (!facts) continue;
    news.sort((a, b) => a.participationId - b.participationId);
    queued += await queueParticipationNews(trx, notifier, facts, news, { message: options.message ?? null });
  }
  return queued;
}
