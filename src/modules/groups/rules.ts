import { atLeast, isAtOrBelow } from '../permissions/levels.js';
import type { TenantDb, GroupRow } from '../../db/types.js';
import { errors, fieldMessages, ruleMessages } from '../../errors.js';
import { requireIfMatch } from '../../http/etag.js';
import type { CursorCodec, Page, SortKey } from '../../http/paging.js';
import { compareText, sortKey } from '../../lib/sort-key.js';
import { pickFields } from '../../lib/pick.js';
import { toDbTimestamp } from '../../lib/time.js';
import type { Access } from '../permissions/rules.js';
import { actorOf, BOOKKEEPING, changedFields, noteCreated, noteDeleted, noteUpdated, transact } from '../../recording/recorder.js';
import {
  deleteGroup,
  findGroup,
  hasActiveMemberships,
  hasSubgroups,
  insertGroup,
  lockGroup,
  lockTree,
  listAllGroups,
  movePaths,
  updateGroup,
} from './queries.js';
import { toApiGroup, type GroupListFilters, type GroupUpdate, type NewGroup } from './schemas.js';
import { deleteEndedEventsOfGroup, groupHasUpcomingEvents } from '../events/of-group.js';

/** A group by id, or 404 `Group not found.` (every person of the tenant sees every group). */
export async function requireGroup(db: TenantDb, id: number | null): Promise<GroupRow> {
  const group = id === null ? undefined : await findGroup(db, id);
  if (!group) throw errors.notFound('Group');
  return group;
}

/**
 * The order of GET /groups: the tree in pre-order, siblings by name (sort key, then the name,
 * then id). A group's place is the list of (key, name, id) of its ancestors and itself, so the
 * order, and a cursor (the place of the last row shown), stays right while groups come and go.
 */
function placeOf(group: GroupRow, byId: Map<number, GroupRow>): SortKey {
  const ids = group.path.split('/').filter(Boolean).map(Number);
  return ids.flatMap((id) => {
    const step = byId.get(id) ?? group;
    return [step.name_key, step.name, Number(step.id)];
  });
}

function comparePlaces(a: SortKey, b: SortKey): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i];
    const y = b[i];
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : compareText(String(x), String(y));
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

const LIST = 'groups';

export async function listGroups(db: TenantDb, filters: GroupListFilters, limit: number, cursors: CursorCodec): Promise<Page<GroupRow>> {
  const after = filters.cursor === undefined ? null : cursors.decode(LIST, filters.cursor);
  const all = await listAllGroups(db);
  const byId = new Map(all.map((group) => [Number(group.id), group]));
  const below = filters.below === undefined ? undefined : byId.get(filters.below);
  const query = filters.q === undefined ? undefined : sortKey(filters.q);
  const rows = all
    .filter((group) => filters.parent_id === undefined || Number(group.parent_id) === filters.parent_id)
    .filter((group) => filters.below === undefined || (below !== undefined && isAtOrBelow(group.path, below.path)))
    .filter((group) => query === undefined || group.name_key.includes(query))
    .map((group) => ({ group, place: placeOf(group, byId) }))
    .filter(({ place }) => after === null || comparePlaces(place, after) > 0)
    .sort((a, b) => comparePlaces(a.place, b.place))
    .slice(0, limit + 1);
  const page = cursors.page(LIST, rows, limit, (row) => row.place);
  return { rows: page.rows.map((row) => row.group), nextCursor: page.nextCursor };
}

/** Every group in the order of GET /groups (the CLI's `group list`). */
export async function groupsInTreeOrder(db: TenantDb): Promise<GroupRow[]> {
  const all = await listAllGroups(db);
  const byId = new Map(all.map((group) => [Number(group.id), group]));
  return all
    .map((group) => ({ group, place: placeOf(group, byId) }))
    .sort((a, b) => comparePlaces(a.place, b.place))
    .map((row) => row.group);
}

/** POST /groups: `write` on the parent. */
export async function createGroup(db: TenantDb, access: Access, input: NewGroup): Promise<GroupRow> {
  const values = { name: input.name, name_key: sortKey(input.name), kind: input.kind ?? '', description: input.description ?? null };
  return transact(db, actorOf(access), async (trx) => {
    await lockTree(trx);
    const parent = await findGroup(trx, input.parent_id);
    if (!parent) throw errors.invalidField('parent_id', fieldMessages.selectedInvalid('parent_id'));
    if (!atLeast(access.on(parent.path), 'write')) throw errors.unauthorized();
    const created = await insertGroup(trx, parent, values, toDbTimestamp(new Date()));
    noteCreated(trx, 'group', Number(created.id));
    return created;
  });
}

/** PATCH /groups/{id}: `write` on the group; a move also on the new parent, never below itself. */
export async function changeGroup(db: TenantDb, access: Access, group: GroupRow, input: GroupUpdate, ifMatch: string | undefined): Promise<GroupRow> {
  return transact(db, actorOf(access), async (trx) => {
    if (input.parent_id !== undefined) await lockTree(trx);
    // Held until the commit (a move of it or above it waits), and checked again as it is now: a
    // move that committed since the route checked `write` may have taken it out of the caller's reach.
    const current = await lockGroup(trx, Number(group.id));
    if (!current) throw errors.notFound('Group');
    if (!atLeast(access.on(current.path), 'write')) throw errors.unauthorized();
    requireIfMatch(ifMatch, current.version);
    const parentId = input.parent_id;
    const fields = pickFields(input, ['name', 'kind', 'description']);
    const moves = parentId !== undefined && parentId !== (current.parent_id === null ? null : Number(current.parent_id));
    let newPath: string | undefined;
    if (moves) {
      if (current.parent_id === null) throw errors.ruleBroken('group', ruleMessages.rootGroupFixed);
      if (parentId === null) throw errors.invalidField('parent_id', fieldMessages.required('parent_id'));
      const parent = await findGroup(trx, parentId);
      if (!parent) throw errors.invalidField('parent_id', fieldMessages.selectedInvalid('parent_id'));
      if (!atLeast(access.on(parent.path), 'write')) throw errors.unauthorized();
      if (isAtOrBelow(parent.path, current.path)) throw errors.invalidField('parent_id', ruleMessages.groupBelowItself);
      newPath = `${parent.path}${Number(current.id)}/`;
    }
    const changes = {
      ...fields,
      ...(fields.name !== undefined ? { name_key: sortKey(fields.name) } : {}),
      ...(moves ? { parent_id: parentId } : {}),
    };
    const moved = newPath === undefined ? [] : await movePaths(trx, current.path, newPath, toDbTimestamp(new Date()));
    const updated = await updateGroup(trx, Number(current.id), changes, toDbTimestamp(new Date()));
    noteUpdated(trx, 'group', Number(current.id), changedFields(toApiGroup(current), toApiGroup(updated), BOOKKEEPING));
    // The groups below changed their `ancestors` (and version): a record each, without fields.
    for (const id of moved) if (id !== Number(current.id)) noteUpdated(trx, 'group', id, {});
    return updated;
  });
}

/** The path of a group's parent: "/1/4/9/" -> "/1/4/". */
const parentPathOf = (path: string): string => path.slice(0, path.slice(0, -1).lastIndexOf('/') + 1);

/**
 * DELETE /groups/{id}: `write` on the parent. The root is 422 for those with `write` on it, 403
 * for others; then the first of: subgroups, active memberships, upcoming events.
 */
export async function removeGroup(db: TenantDb, access: Access, group: GroupRow, ifMatch: string | undefined): Promise<void> {
  if (group.parent_id === null) {
    if (!atLeast(access.on(group.path), 'write')) throw errors.unauthorized();
    throw errors.ruleBroken('group', ruleMessages.rootGroupFixed);
  }
  if (!atLeast(access.on(parentPathOf(group.path)), 'write')) throw errors.unauthorized();
  await transact(db, actorOf(access), async (trx) => {
    // After every tree write and every write that holds this group: none adds to it unseen.
    await lockTree(trx);
    const current = await lockGroup(trx, Number(group.id));
    if (!current) throw errors.notFound('Group');
    // As it is now: a move that committed since the check above may have taken it out of reach.
    if (!atLeast(access.on(parentPathOf(current.path)), 'write')) throw errors.unauthorized();
    requireIfMatch(ifMatch, current.version);
    if (await hasSubgroups(trx, Number(current.id))) throw errors.ruleBroken('group', ruleMessages.groupHasSubgroups);
    if (await hasActiveMemberships(trx, Number(current.id), access.day)) throw errors.ruleBroken('group', ruleMessages.groupHasActiveMemberships);
    const now = toDbTimestamp(new Date());
    if (await groupHasUpcomingEvents(trx, Number(current.id), now)) throw errors.ruleBroken('group', ruleMessages.groupHasUpcomingEvents);
    // Its ended events go with it, their participations too.
    const endedEvents = await deleteEndedEventsOfGroup(trx, Number(current.id), now);
    for (const participation of endedEvents.participations) noteDeleted(trx, 'participation', participation.id, { personId: participation.person_id });
    for (const eventId of endedEvents.eventIds) noteDeleted(trx, 'event', eventId);
    for (const membership of await deleteGroup(trx, Number(current.id))) noteDeleted(trx, 'membership', membership.id, { personId: membership.person_id });
    noteDeleted(trx, 'group', Number(current.id));
  });
}

// What other modules use of this module's queries: named here, so that its tables stay its own.
export { findGroup, holdGroup } from './queries.js';
