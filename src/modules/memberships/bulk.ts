import type { MembershipRow, TenantDb } from '../../db/types.js';
import { errors, type FieldErrors } from '../../errors.js';
import { hasProblems, inIndexOrder, itemRefusal, unseenPeople } from '../../http/bulk.js';
import { actorOf, transact } from '../../recording/recorder.js';
import { atLeast } from '../permissions/levels.js';
import { seenPersonIds, type Access } from '../permissions/rules.js';
import { findMembership, lockPersonForMemberships } from './queries.js';
import {
  addMembership,
  applyMembershipChange,
  changedMembership,
  datesProblem,
  requireAdministratorAfterAll,
  requireGrantable,
  requireGroupById,
  requireVisibleMembership,
} from './rules.js';
import type { MembershipGrant, MembershipUpdate } from './schemas.js';

// The bulk forms of memberships (docs/api/groups-people-memberships.md, "Several at once"): all or
// nothing, each item by the rules of its single form, in the order given, in one transaction.
// Every refused item is named at once. The people's memberships are locked first, in the order
// of their ids: two requests over the same people in different orders take turns, never wait on
// each other (a deadlock on PostgreSQL).

/** The fields of a membership a bulk change may carry; an error on another is the item's own. */
const CHANGE_FIELDS = ['label', 'start_on', 'end_on'];

/** Locks the memberships of these people, each once, in the order of their ids. */
async function lockPeople(trx: TenantDb, personIds: Iterable<number>): Promise<void> {
  for (const personId of [...new Set(personIds)].sort((a, b) => a - b)) await lockPersonForMemberships(trx, personId);
}

/**
 * POST /memberships with `person_ids`: the same membership for several people. The request as a
 * whole first (the group 404; `write` there and the role grantable, 403; the dates), then each
 * person as the single form checks them: not seen (`Person not found.`, nothing more), or holding
 * this role here already, is a 422 entry `person_ids.<i>`, and no one is added.
 */
export async function grantMany(db: TenantDb, access: Access, personIds: readonly number[], grant: MembershipGrant): Promise<MembershipRow[]> {
  const group = await requireGroupById(db, grant.group_id);
  if (!atLeast(access.on(group.path), 'write')) throw errors.unauthorized();
  await requireGrantable(db, access, group, grant.role_type);
  const dates = datesProblem(grant.start_on ?? access.day, grant.end_on ?? null);
  if (dates) throw errors.validation(dates);
  const seen = await seenPersonIds(db, access, personIds);
  return transact(db, actorOf(access), async (trx) => {
    await lockPeople(trx, personIds.filter((id) => seen.has(id)));
    const problems: FieldErrors = unseenPeople(personIds, seen);
    const created: MembershipRow[] = [];
    for (const [i, personId] of personIds.entries()) {
      if (!seen.has(personId)) continue;
      try {
        created.push(await addMembership(trx, personId, grant, access.day));
      } catch (error) {
        Object.assign(problems, itemRefusal(error, `person_ids.${i}`, `person_ids.${i}`, []));
      }
    }
    if (hasProblems(problems)) throw errors.validation(inIndexOrder(problems));
    return created;
  });
}

/** One item of PATCH /memberships. */
export type MembershipChange = MembershipUpdate & { id: number };

/**
 * PATCH /memberships: several memberships' dates or labels (ending them on a chosen day, mostly),
 * each checked against its own group as PATCH /memberships/{id} checks it (seen, else
 * `Membership not found.`; `write` there with its role grantable, else `This action is
 * unauthorized.`), in the order given. The last-administrator rule applies to the set as a whole:
 * 422 `memberships`. Any refusal: nothing changes.
 */
export async function changeManyMemberships(db: TenantDb, access: Access, changes: readonly MembershipChange[]): Promise<MembershipRow[]> {
  return transact(db, actorOf(access), async (trx) => {
    const problems: FieldErrors = {};
    const allowed: { i: number; membership: MembershipRow; update: MembershipUpdate }[] = [];
    for (const [i, { id, ...update }] of changes.entries()) {
      try {
        const { membership, group } = await requireVisibleMembership(trx, access, id);
        await requireGrantable(trx, access, group, membership.role_type);
        allowed.push({ i, membership, update });
      } catch (error) {
        Object.assign(problems, itemRefusal(error, `memberships.${i}`, `memberships.${i}.id`, CHANGE_FIELDS));
      }
    }
    await lockPeople(trx, allowed.map(({ membership }) => Number(membership.person_id)));
    // Read again under the locks, and asked of the set as the request leaves it, before any of it is written.
    const current = new Map<number, MembershipRow>();
    for (const { i, membership } of allowed) {
      const row = await findMembership(trx, Number(membership.id));
      if (row) current.set(i, row);
      else problems[`memberships.${i}.id`] = [errors.notFound('Membership').message];
    }
    const after = new Map(allowed.flatMap(({ i, update }) => (current.has(i) ? [[Number(current.get(i)!.id), changedMembership(current.get(i)!, update)] as const] : [])));
    await requireAdministratorAfterAll(trx, access, after).catch((error: unknown) => Object.assign(problems, itemRefusal(error, 'memberships', 'memberships', [])));
    const updated = new Map<number, MembershipRow>();
    for (const { i, update } of allowed) {
      if (!current.has(i)) continue;
      try {
        // As the earlier items left it: one of them may have been another membership of the same person.
        const row = (await findMembership(trx, Number(current.get(i)!.id)))!;
        updated.set(i, await applyMembershipChange(trx, access, row, update));
      } catch (error) {
        Object.assign(problems, itemRefusal(error, `memberships.${i}`, `memberships.${i}.id`, CHANGE_FIELDS));
      }
    }
    if (hasProblems(problems)) throw errors.validation(inIndexOrder(problems));
    return changes.map((_, i) => updated.get(i)!);
  });
}
