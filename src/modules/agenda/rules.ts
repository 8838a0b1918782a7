import type { TenantDb, UserRow } from '../../db/types.js';
import type { CursorCodec, Page } from '../../http/paging.js';
import { toDbTimestamp } from '../../lib/time.js';
import { eventSortKey, listAgendaEvents } from '../events/rules.js';
import { toApiEvent } from '../events/schemas.js';
import { familyParticipations } from '../participations/rules.js';
import { registrationOpen } from '../participations/who-may-register.js';
import { findPerson, listWards } from '../people/rules.js';
import { activeGroupPathsByPerson, householdOf, type Access } from '../permissions/rules.js';
import type { AgendaFilters, AgendaItem } from './schemas.js';
import { groupIdsOnPath } from '../permissions/levels.js';

// The family's agenda: what is next for the caller and their wards, one request for a home page.
// An event is on it when one of them is registered (in any state but cancelled), or when it is
// open to one of them now: an active membership in its group or a group below, and registration
// open. Holding `read` on a group alone does not put the tenant's every event there.

const LIST = 'agenda';
const DAY_MS = 86_400_000;
const LIVE = new Set(['pending', 'accepted', 'waitlisted']);

/** People in name order: last name, first name (ignoring case and accents), then as written, then id. */
function byName(a: UserRow, b: UserRow): number {
  const keys = (p: UserRow) => [p.lastname_key, p.firstname_key, p.lastname, p.firstname] as const;
  const [x, y] = [keys(a), keys(b)];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return Number(a.id) - Number(b.id);
}

export async function agendaOf(db: TenantDb, access: Access, filters: AgendaFilters, limit: number, cursors: CursorCodec): Promise<Page<AgendaItem>> {
  const nowMs = Date.now();
  const now = toDbTimestamp(new Date(nowMs));
  const household = await householdOf(db, access);
  const [caller, wards, pathsByPerson] = await Promise.all([
    findPerson(db, access.personId),
    listWards(db, access.personId),
    activeGroupPathsByPerson(db, household.personIds, access.day),
  ]);
  const family = [...(caller ? [caller] : []), ...wards].sort(byName);
  const openTo = new Map(family.map((person) => [Number(person.id), new Set((pathsByPerson.get(Number(person.id)) ?? []).flatMap(groupIdsOnPath))]));
  const openGroupIds = [...new Set([...openTo.values()].flatMap((ids) => [...ids]))];

  const selection = {
    personIds: family.map((person) => Number(person.id)),
    openGroupIds,
    now,
    from: toDbTimestamp(filters.from === undefined ? new Date(nowMs - DAY_MS) : new Date(filters.from)),
    to: toDbTimestamp(filters.to === undefined ? new Date(nowMs + 90 * DAY_MS) : new Date(filters.to)),
  };
  const after = filters.cursor === undefined ? null : cursors.decode(LIST, filters.cursor);
  const page = cursors.page(LIST, await listAgendaEvents(db, selection, after, limit), limit, eventSortKey);

  const participations = await familyParticipations(db, page.rows.map((event) => Number(event.id)), selection.personIds);
  const rank = new Map(selection.personIds.map((id, index) => [id, index]));
  const items = page.rows.map((event): AgendaItem => {
    const own = participations
      .filter((p) => Number(p.event_id) === Number(event.id))
      .sort((a, b) => rank.get(Number(a.person_id))! - rank.get(Number(b.person_id))! || Number(a.id) - Number(b.id));
    const live = new Set(own.filter((p) => LIVE.has(p.state)).map((p) => Number(p.person_id)));
    const open = registrationOpen(event, now);
    return {
      event: toApiEvent(event),
      family: own.map((p) => ({
        person_id: Number(p.person_id),
        participation_id: Number(p.id),
        state: p.state as AgendaItem['family'][number]['state'],
        waitlist_position: p.waitlist_position === null ? null : Number(p.waitlist_position),
      })),
      may_register: open ? selection.personIds.filter((id) => !live.has(id) && openTo.get(id)!.has(Number(event.group_id))) : [],
    };
  });
  return { rows: items, nextCursor: page.nextCursor };
}
