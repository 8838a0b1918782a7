import { atLeast, isActiveOn } from '../permissions/levels.js';
import type { TenantDb, GroupRow, MembershipRow } from '../../db/types.js';
import { errors, fieldMessages, ruleMessages, type FieldErrors } from '../../errors.js';
import { requireIfMatch } from '../../http/etag.js';
import { pickFields } from '../../lib/pick.js';
import { toDbTimestamp, type Day } from '../../lib/time.js';
import { canSeePerson, type Access } from '../permissions/rules.js';
import { deleteMembership, findMembership, findOverlap, insertMembership, lockPersonForMemberships, updateMembership } from './queries.js';
import { toApiMembership, type MembershipGrant, type MembershipUpdate } from './schemas.js';
import { actorOf, BOOKKEEPING, changedFields, noteCreated, noteDeleted, noteUpdated, transact } from '../../recording/recorder.js';
import { requireAdministratorLeft } from './last-administrator.js';
import { findGroup, holdGroup } from '../groups/rules.js';
import { findRoleType } from '../role-types/rules.js';

/** A referenced group, or 404 `Group not found.` */
export async function requireGroupById(db: TenantDb, id: number): Promise<GroupRow> {
  const group = await findGroup(db, id);
  if (!group) throw errors.notFound('Group');
  return group;
}

/**
 * May the caller grant (or re-open, or remove) a membership with this role in this group?
 * `write` on the group, and the role's permission not above the caller's own there: no one
 * grants more than they hold (docs/rules/permissions.md). A role of scope `subtree` reaches
 * every group below too, so there the caller must hold its permission on the whole subtree
 * (through a subtree role of their own): a writer of one group alone cannot make someone, or
 * themself, a writer of the groups below it. A role type that does not exist is 404.
 */
export async function requireGrantable(db: TenantDb, access: Access, group: GroupRow, roleType: string): Promise<void> {
  const held = access.on(group.path);
  if (!atLeast(held, 'write')) throw errors.unauthorized();
  const role = await findRoleType(db, roleType);
  if (!role) throw errors.notFound('Role type');
  const reach = role.scope === 'subtree' ? access.onSubtree(group.path) : held;
  if (!atLeast(reach, role.permission)) throw errors.unauthorized();
}

export function datesProblem(startOn: Day, endOn: Day | null): FieldErrors | null {
  if (endOn !== null && endOn < startOn) return { end_on: [fieldMessages.dateAfterOrEqual('end_on', 'start_on')] };
  return null;
}

/**
 * Adds a membership (POST /memberships, POST /people, the CLI) after the caller's rights were
 * checked: dates in order, no overlap with the same role in the same group. Runs in `db`'s
 * transaction when there is one.
 */
export async function addMembership(db: TenantDb, personId: number, grant: MembershipGrant, today: Day): Promise<MembershipRow> {
  const row = {
    person_id: personId,
    group_id: grant.group_id,
    role_type: grant.role_type,
    label: grant.label ?? null,
    start_on: grant.start_on ?? today,
    end_on: grant.end_on ?? null,
  };
  const problem = datesProblem(row.start_on, row.end_on);
  if (problem) throw errors.validation(problem);
  if (!(await lockPersonForMemberships(db, personId))) throw errors.notFound('Person');
  if (!(await holdGroup(db, grant.group_id))) throw errors.notFound('Group');
  if (await findOverlap(db, row)) throw errors.invalidField('role_type', ruleMessages.alreadyHasRole);
  const created = await insertMembership(db, row, toDbTimestamp(new Date()));
  noteCreated(db, 'membership', Number(created.id), { personId });
  return created;
}

/** POST /memberships: the group (404), `write` there, the person visible (404), the role grantable. */
export async function grantMembership(db: TenantDb, access: Access, personId: number, grant: MembershipGrant): Promise<MembershipRow> {
  const group = await requireGroupById(db, grant.group_id);
  if (!atLeast(access.on(group.path), 'write')) throw errors.unauthorized();
  if (!(await canSeePerson(db, access, personId))) throw errors.notFound('Person');
  await requireGrantable(db, access, group, grant.role_type);
  return transact(db, actorOf(access), (trx) => addMembership(trx, personId, grant, access.day));
}

/** A membership the caller sees (they see its person, or read its group), or 404. */
export async function requireVisibleMembership(db: TenantDb, access: Access, id: number | null): Promise<{ membership: MembershipRow; group: GroupRow }> {
  const membership = id === null ? undefined : await findMembership(db, id);
  if (!membership) throw errors.notFound('Membership');
  const group = await requireGroupById(db, Number(membership.group_id));
  if (!atLeast(access.on(group.path), 'read') && !(await canSeePerson(db, access, Number(membership.person_id)))) {
    throw errors.notFound('Membership');
  }
  return { membership, group };
}

/** Ending or deleting (`after` null) an administration of the root needs another one left. */
const requireAnotherAdministrator = (db: TenantDb, access: Access, before: MembershipRow, after: MembershipRow | null) =>
  requireAdministratorLeft(db, access, 'membership', (administration) =>
    administration.id === Number(before.id) && !(after !== null && isActiveOn({ startOn: after.start_on, endOn: after.end_on }, access.day)),
  );

/**
 * Whether new dates give the membership a day, from `day` on, that it did not cover: re-opening
 * an ended one, starting a future one earlier, ending one later. That grants membership as POST
 * /memberships does, so it needs what POST needs, the person visible to the caller: a former
 * member who now belongs to another group is not the leader's to fetch back and read again.
 * Dates are YYYY-MM-DD, compared as text.
 */
function addsDays(current: Pick<MembershipRow, 'start_on' | 'end_on'>, next: Pick<MembershipRow, 'start_on' | 'end_on'>, day: Day): boolean {
  const from = (startOn: string) => (startOn > day ? startOn : day);
  const covers = (m: Pick<MembershipRow, 'start_on' | 'end_on'>) => m.end_on === null || m.end_on >= from(m.start_on);
  if (!covers(next)) return false;
  if (!covers(current)) return true;
  const endsLater = current.end_on !== null && (next.end_on === null || next.end_on > current.end_on);
  return from(next.start_on) < from(current.start_on) || endsLater;
}

export async function changeMembership(db: TenantDb, access: Access, membership: MembershipRow, update: MembershipUpdate, ifMatch: string | undefined) {
  return transact(db, actorOf(access), async (trx) => {
    const current = await lockedMembership(trx, membership);
    requireIfMatch(ifMatch, current.version);
    return applyMembershipChange(trx, access, current, update, (next) => requireAnotherAdministrator(trx, access, current, next));
  });
}

/** The membership as it is now, with its person's memberships locked: new dates can overlap another of them, so their writes take turns. */
export async function lockedMembership(trx: TenantDb, membership: Pick<MembershipRow, 'id' | 'person_id'>): Promise<MembershipRow> {
  await lockPersonForMemberships(trx, Number(membership.person_id));
  const current = await findMembership(trx, Number(membership.id));
  if (!current) throw errors.notFound('Membership');
  return current;
}

/** A membership as a change of its label or dates would leave it. */
export function changedMembership(current: MembershipRow, update: MembershipUpdate): MembershipRow {
  const input = pickFields(update, ['label', 'start_on', 'end_on']);
  return { ...current, ...input, end_on: input.end_on === undefined ? current.end_on : input.end_on };
}

/**
 * New label or dates of a membership as it is now (lockedMembership), inside a transaction.
 * `beforeWrite` asks the last-administrator rule of this one membership; a set changed together
 * asks it of the set, before any of them (requireAdministratorAfterAll).
 */
export async function applyMembershipChange(
  trx: TenantDb,
  access: Access,
  current: MembershipRow,
  update: MembershipUpdate,
  beforeWrite: (next: MembershipRow) => Promise<void> = async () => undefined,
): Promise<MembershipRow> {
  const input = pickFields(update, ['label', 'start_on', 'end_on']);
  const next = changedMembership(current, update);
  const problem = datesProblem(next.start_on, next.end_on);
  if (problem) throw errors.validation(problem);
  // 403, not 404: the caller sees the membership, only not its person.
  if (addsDays(current, next, access.day) && !(await canSeePerson(trx, access, Number(current.person_id)))) throw errors.unauthorized();
  if (await findOverlap(trx, next, Number(current.id))) throw errors.invalidField('role_type', ruleMessages.alreadyHasRole);
  await beforeWrite(next);
  const updated = await updateMembership(trx, Number(current.id), input, toDbTimestamp(new Date()));
  noteUpdated(trx, 'membership', Number(current.id), changedFields(toApiMembership(current), toApiMembership(updated), BOOKKEEPING), {
    personId: Number(current.person_id),
  });
  return updated;
}

/**
 * The last-administrator rule over memberships changed together (`after`: each as it will be, by
 * id), asked before any is written, of the set as a whole: it may not leave the root without an
 * administration active today. A set that makes one active (a successor's membership started
 * today) while ending another (one's own) hands the administration over, and passes.
 */
export async function requireAdministratorAfterAll(db: TenantDb, access: Access, after: ReadonlyMap<number, MembershipRow>): Promise<void> {
  const activeAfter = (m: MembershipRow) => isActiveOn({ startOn: m.start_on, endOn: m.end_on }, access.day);
  for (const m of after.values()) {
    if (Number(m.group_id) === access.root.id && activeAfter(m) && (await findRoleType(db, m.role_type))?.permission === 'admin') return;
  }
  await requireAdministratorLeft(db, access, 'memberships', (administration) => {
    const changed = after.get(administration.id);
    return changed !== undefined && !activeAfter(changed);
  });
}

export async function removeMembership(db: TenantDb, access: Access, membership: MembershipRow, ifMatch: string | undefined): Promise<void> {
  await transact(db, actorOf(access), async (trx) => {
    const current = await findMembership(trx, Number(membership.id));
    if (!current) throw errors.notFound('Membership');
    requireIfMatch(ifMatch, current.version);
    await requireAnotherAdministrator(trx, access, current, null);
    await deleteMembership(trx, Number(current.id));
    noteDeleted(trx, 'membership', Number(current.id), { personId: Number(current.person_id) });
  });
}

// What other modules use of this module's queries: named here, so that its tables stay its own.
export {
  activeMembershipsWithGroups,
  groupMembershipKey,
  insertMemberships,
  listGroupMemberships,
  listPersonMemberships,
  lockPersonForMemberships,
  membershipsWithGroupNames,
} from './queries.js';
