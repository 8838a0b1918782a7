import type { TenantDb } from '../../db/types.js';
import { errors } from '../../errors.js';
import { transact } from '../../recording/recorder.js';
import { queueMails, type NewMail } from '../mail/outbox.js';
import { participationMails, wakeAfterCommit, type Addressee, type Notifier, type ParticipationNews } from '../notifications/rules.js';
import type { EventRow } from '../../db/types.js';
import { participationsByIds, type ParticipationItemRow } from './queries.js';
import { lockEventOrThrow, SplitTheTurn, takePlaces, type Placed, type Registration } from './seats.js';

/**
 * Registrations for one event take turns at this instance (a group commit): the first goes at
 * once; those that arrive while a turn's transaction runs wait for it, and the next turn places
 * them all in one transaction, in the order they came: one lock of the event's row, one insert,
 * one update of its counts, one write of change records; then one read of the new rows for the
 * answers.
 *
 * Why: every registration locks the event's row (seats.ts), so a storm is as slow as the
 * transactions that hold the lock one after another. Alone, each held it for five round trips
 * (lock, insert, counts, change records, commit), about 2 ms under a storm's load on PostgreSQL,
 * where each answer waits for the event loop that is also reading the storm's other requests:
 * of 500 registrations at once on two instances, 1.2-1.7 s was the lock held, one transaction
 * after another (bench, register-storm, timed in the process). In turns an instance takes the
 * lock two to four times a storm, for 35-105 ms each.
 *
 * A turn whose insert one of its registrations failed is taken again; the failed transaction
 * left nothing behind. For a person registered already (a double click, a retry), once more as a
 * whole, those registered read first; for a person erased meanwhile, one registration at a time.
 * Either way each gets the answer it would have got alone. Any other failure (the event deleted,
 * the database away) is the answer of all, without a try each.
 *
 * The confirmations go to the outbox in the turn's transaction, in one insert: who gets them was
 * read by each request before it joined the turn, so the lock waits for no more than that insert.
 */

/** Who a registration's confirmation goes to, read before the turn. */
export interface RegistrationNotice {
  notifier: Notifier;
  /** The person and their guardians; undefined when the person is gone (the turn refuses them). */
  addressee: Addressee | undefined;
}

/** Registrations placed in one transaction at most: a bound on the insert's parameters. */
const MOST_PER_TURN = 250;

interface Waiting {
  registration: Registration;
  notice: RegistrationNotice | null;
  resolve: (created: ParticipationItemRow) => void;
  reject: (error: unknown) => void;
}

/** Per tenant, per event: the registrations waiting for the turn after the running one. */
const waitingByTenant = new WeakMap<TenantDb, Map<number, Waiting[]>>();

/** Places a registration for the event in this instance's next turn: the new participation, or its refusal. */
export function registerInTurn(db: TenantDb, eventId: number, registration: Registration, notice: RegistrationNotice | null = null): Promise<ParticipationItemRow> {
  return new Promise((resolve, reject) => {
    let waitingByEvent = waitingByTenant.get(db);
    if (!waitingByEvent) waitingByTenant.set(db, (waitingByEvent = new Map()));
    const waiting = waitingByEvent.get(eventId);
    if (waiting) {
      waiting.push({ registration, notice, resolve, reject });
      return;
    }
    // No turn runs for the event: this one starts, and the queue marks that one runs.
    const queue: Waiting[] = [{ registration, notice, resolve, reject }];
    waitingByEvent.set(eventId, queue);
    void takeTurns(db, waitingByEvent, eventId, queue);
  });
}

async function takeTurns(db: TenantDb, waitingByEvent: Map<number, Waiting[]>, eventId: number, queue: Waiting[]): Promise<void> {
  let turn: Waiting[] = [];
  try {
    while (queue.length > 0) {
      turn = queue.splice(0, MOST_PER_TURN);
      await takeTurn(db, eventId, turn);
    }
  } catch (error) {
    // takeTurn settles its own; should it ever throw, no one waits for an answer that never comes
    // (settling one settled already does nothing).
    for (const waiting of [...turn, ...queue.splice(0)]) waiting.reject(error);
  } finally {
    waitingByEvent.delete(eventId);
  }
}

/**
 * One transaction for the turn; every registration of it is settled. A failure of the whole
 * (the event gone, the database away) is every registration's answer, as it would be alone.
 */
async function takeTurn(db: TenantDb, eventId: number, turn: Waiting[], lookUpRegistered = false): Promise<void> {
  let placed: Placed[];
  let queued = 0;
  try {
    placed = await transact(db, null, async (trx) => {
      const event = await lockEventOrThrow(trx, eventId);
      const outcomes = await takePlaces(trx, event, turn.map((w) => w.registration), { lookUpRegistered });
      queued = await queueConfirmations(trx, event, turn, outcomes);
      return outcomes;
    });
  } catch (error) {
    if (error instanceof SplitTheTurn && error.someoneRegistered) return takeTurn(db, eventId, turn, true);
    if (error instanceof SplitTheTurn) for (const waiting of turn) await takeTurn(db, eventId, [waiting]);
    else for (const waiting of turn) waiting.reject(error);
    return;
  }
  const notifier = turn.find((waiting) => waiting.notice !== null)?.notice?.notifier;
  if (notifier) wakeAfterCommit(notifier, queued);
  try {
    const ids = placed.flatMap((outcome) => ('id' in outcome ? [outcome.id] : []));
    const rows = new Map((await participationsByIds(db, ids)).map((row) => [Number(row.id), row]));
    turn.forEach((waiting, i) => {
      const outcome = placed[i]!;
      if ('refused' in outcome) return waiting.reject(outcome.refused);
      const row = rows.get(outcome.id);
      // Gone between the commit and the read: the person was erased, their participations with them.
      if (row === undefined) waiting.reject(errors.notFound('Person'));
      else waiting.resolve(row);
    });
  } catch (error) {
    // Committed, but not read back: as when an answer cannot be written, the request fails.
    turn.forEach((waiting, i) => {
      const outcome = placed[i]!;
      waiting.reject('refused' in outcome ? outcome.refused : error);
    });
  }
}

/** The confirmations of a turn's new participations, composed at once (one date, one insert into the outbox). */
async function queueConfirmations(trx: TenantDb, event: EventRow, turn: readonly Waiting[], outcomes: readonly Placed[]): Promise<number> {
  let notifier: Notifier | undefined;
  const addressees = new Map<number, Addressee>();
  const news: ParticipationNews[] = [];
  turn.forEach((waiting, i) => {
    const outcome = outcomes[i]!;
    if (waiting.notice === null || waiting.notice.addressee === undefined || 'refused' in outcome) return;
    notifier ??= waiting.notice.notifier;
    addressees.set(waiting.registration.personId, waiting.notice.addressee);
    news.push({ participationId: outcome.id, personId: waiting.registration.personId, state: outcome.state, waitlistPosition: outcome.waitlistPosition, cause: 'registered' });
  });
  if (notifier === undefined) return 0;
  const mails: NewMail[] = participationMails(notifier, event, news, addressees);
  await queueMails(trx, notifier.hub, mails);
  return mails.length;
}
