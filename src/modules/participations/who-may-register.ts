import type { EventRow, TenantDb } from '../../db/types.js';
import { normaliseDbTimestamp } from '../../lib/time.js';
import { atLeast, isAtOrBelow } from '../permissions/levels.js';
import { accessOf, type Access } from '../permissions/rules.js';

// Who may register for an event without managing it, and when. An event's managers (`write` on
// its group, with `events:write`) register anyone they see, in any role, at any time; these rules
// are for everyone else: a person registering themself, a guardian registering a ward.

/**
 * Whether the event's registration is open at `now` (database timestamps): from
 * `registration_opens_at` (none: from the start) until, not including, `registration_closes_at`, or
 * the event's start when no closing is set. After the start only managers register.
 */
export function registrationOpen(event: Pick<EventRow, 'registration_opens_at' | 'registration_closes_at' | 'starts_at'>, now: string): boolean {
  const opens = event.registration_opens_at === null ? null : normaliseDbTimestamp(event.registration_opens_at);
  const closes = normaliseDbTimestamp(event.registration_closes_at ?? event.starts_at);
  return (opens === null || opens <= now) && now < closes;
}

/**
 * Whether `personId` (the caller or one of their wards) may take part in an event of the group at
 * `groupPath` when a non-manager registers them: they hold an active membership in that group or a
 * group below it, or `read` on the group. A parent who sees a children's hike only through a child
 * registers the child, not themself; a child of another branch is not registered for this one.
 */
export async function mayTakePartIn(db: TenantDb, access: Access, personId: number, groupPath: string): Promise<boolean> {
  const person = personId === access.personId ? access : await accessOf(db, personId, access.day);
  return atLeast(person.on(groupPath), 'read') || person.memberOf.some((path) => isAtOrBelow(path, groupPath));
}
