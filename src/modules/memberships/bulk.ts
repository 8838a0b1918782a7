import type { MembershipRow, TenantDb } from '../../db/types.js';
import { errors, type FieldErrors } from '../../errors.js';
import { hasProblems, itemRefusal } from '../../http/bulk.js';
import { actorOf, transact } from '../../recording/recorder.js';
import { atLeast } from '../permissions/levels.js';
import { seenPersonIds, type Access } from '../permissions/rules.js';
import { findMembership } from './queries.js';
import {
  addMembership,
  applyMembershipChange,
  changedMembership,
  datesProblem,
  lockedMembership,
  requireAdministratorAfterAll,
  requireGrantable,
  requireGroupById,
  requireVisibleMembership,
} from './rules.js';
import type { MembershipGrant, MembershipUpdate } from './schemas.js';

// The bulk forms of memberships (docs/api/groups-people-memberships.md, "Bulk forms"): all or
// nothing, each item by the rules of its single form, in the order given, in one transaction.

/** The fields of a membership a bulk change may carry; an error on another is the item's own. */
const CHANGE_FIELDS = ['label', 'start_on', 'end_on'];

/**
 * POST /memberships with `person_ids`: the same membership for several people. The request as a
 * whole first (the group 404; `write` there and the role grantable, 403; the dates), then each
 * person as the single form checks them: not seen, or holding this role here already, is a 422
 * entry `person_ids.<i>`, and no one is added.
 */
export async function grantMany(db: TenantDb, access: Access, personIds: readonly number[], grant: MembershipGrant): Promise<MembershipRow[]> {
  const group = await requireGroupById(db, grant.group_id);
  if (!atLeast(access.on(group.path), 'write')) throw errors.unauthorized();
  await requireGrantable(db, access, group, grant.role_type);
  const dates = datesProblem(grant.start_on ?? access.day, grant.end_on ?? null);
  if (dates) throw errors.validation(dates);
  const seen = await seenPersonIds(db, access, personIds);
  const unseen: FieldErrors = Object.fromEntries(personIds.flatMap((id, i) => (seen.has(id) ? [] : [[`person_ids.${i}`, ['Person not found.']]])));
  if (hasProblems(unseen)) throw errors.validation(unseen);
  return transact(db, actorOf(access), async (trx) => {
    const problems: FieldErrors = {};
    const created: MembershipRow[] = [];
    for (const [i, personId] of personIds.entries()) {
      try {
        created.push(await addMembership(trx, personId, grant, access.day));
      } catch (error) {
        Object.assign(problems, itemRefusal(error, `person_ids.${i}`, `person_ids.${i}`, []));
      }
    }
    if (hasProblems(problems)) throw errors.validation(problems);
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
        allowed.push({ i, membership: await lockedMembership(trx, membership), update });
      } catch (error) {
        Object.assign(problems, itemRefusal(error, `memberships.${i}`, `memberships.${i}.id`, CHANGE_FIELDS));
      }
    }
    // Asked of the set as the request leaves it, before any of it is written.
    const after = new Map(allowed.map(({ membership, update }) => [Number(membership.id), changedMembership(membership, update)]));
    await requireAdministratorAfterAll(trx, access, after).catch((error: unknown) => Object.assign(problems, itemRefusal(error, 'memberships', 'memberships', [])));
    const updated = new Map<number, MembershipRow>();
    for (const { i, membership, update } of allowed) {
      try {
        // As the earlier items left it: one of them may have been another membership of the same person.
        const current = (await findMembership(trx, Number(membership.id)))!;
        updated.set(i, await applyMembershipChange(trx, access, current, update));
      } catch (error) {
        Object.assign(problems, itemRefusal(error, `memberships.${i}`, `memberships.${i}.id`, CHANGE_FIELDS));
      }
    }
    if (hasProblems(problems)) throw errors.validation(problems);
    return changes.map((_, i) => updated.get(i)!);
  });
}
