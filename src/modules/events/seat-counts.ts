import type { EventRow, TenantDb } from '../../db/types.js';
import { lockEvent, setEventCounts } from './queries.js';

// The event row's part in registration: its lock and its seat counters. Registration (the
// participations module) keeps the counters; the row and its writes stay the events module's.

/** Locks the event's row until the transaction ends (registrations for it take turns); undefined if gone. */
export const lockEventRow = (db: TenantDb, id: number): Promise<EventRow | undefined> => lockEvent(db, id);

/** Writes the event's accepted and waiting counts, as registration has just changed them. */
export const writeSeatCounts = (db: TenantDb, id: number, counts: { participants_count: number; waitlist_count: number }): Promise<void> =>
  setEventCounts(db, id, counts);
