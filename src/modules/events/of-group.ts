import type { TenantDb } from '../../db/types.js';
import { deleteEndedEvents, hasUpcomingEvents } from './queries.js';

// What deleting a group asks of its events (the groups module's deletion rule): a group with an
// upcoming event stays; its ended events, with their participations, go with it.

/** Whether the group has an event that has not ended at `now` (database timestamp). */
export const groupHasUpcomingEvents = (db: TenantDb, groupId: number, now: string): Promise<boolean> => hasUpcomingEvents(db, groupId, now);

/** Deletes the group's events that ended before `now`, and their participations; says which went. */
export const deleteEndedEventsOfGroup = (db: TenantDb, groupId: number, now: string) => deleteEndedEvents(db, groupId, now);
