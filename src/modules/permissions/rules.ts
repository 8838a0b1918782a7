import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { atLeast, isActiveOn, permissionOn, permissionOnSubtree, type Permission, type RoleHeld, groupIdsOnPath } from './levels.js';
import type { TenantDatabase, TenantDb } from '../../db/types.js';
import {
  activeGroupPaths,
  activeGroupPathsByPerson,
  activeGroupPathsOfPeople,
  isGuardian,
  rolesAndRootOf,
  rolesOfPerson,
  rootGroup,
  wardIdsByGuardian,
  wardIdsOf,
  type RoleRow,
} from './queries.js';
import { activeOn, groupAmong } from '../../db/conditions.js';
import type { Day } from '../../lib/time.js';

/**
 * What one person may do today, for one request: the permission rule (levels.ts) over their
 * memberships, asked as often as the request needs. The memberships themselves may come from the
 * role memory (memory.ts: at most a second old, and never older than this process's own writes);
 * the day is the request's, so an ended membership stops acting at midnight without any write.
 */
export interface Access {
  personId: number;
  day: Day;
  root: { id: number; path: string };
  /** The paths of the groups where the caller has a membership active on `day` (any role). */
  memberOf: readonly string[];
  /** The caller's permission on the group at this path. */
  on(groupPath: string): Permission;
  /** The caller's permission on that group and every group below it (subtree roles alone). */
  onSubtree(groupPath: string): Permission;
  /** The groups where the caller holds at least `needed`: whole subtrees and single groups. */
  groupsWith(needed: Permission): { subtreePaths: string[]; groupIds: number[] };
}

/** `admin` on the root group, "admin on the root": the tenant's administrators. */
export const isRootAdmin = (access: Access): boolean => atLeast(access.on(access.root.path), 'admin');

/** What a person's permissions are made of, on every day: all their memberships and the root. */
export interface RoleFacts {
  roles: readonly RoleRow[];
  root: Access['root'];
}

/** The person's memberships and the root group, read from the database now. */
export async function readRoleFacts(db: TenantDb, personId: number): Promise<RoleFacts> {
  return rolesAndRootOf(db, personId);
}

/** The person's Access on `day`, read from the database now. */
export async function accessOf(db: TenantDb, personId: number, day: Day): Promise<Access> {
  return accessFrom(personId, day, await readRoleFacts(db, personId));
}

/** The Access that these memberships give on `day`. */
export function accessFrom(personId: number, day: Day, { roles, root }: RoleFacts): Access {
  const active = roles.filter((role) => isActiveOn(role, day));
  return {
    personId,
    day,
    root,
    memberOf: [...new Set(active.map((role) => role.groupPath))],
    on: (groupPath) => permissionOn(groupPath, active as RoleHeld[], day),
    onSubtree: (groupPath) => permissionOnSubtree(groupPath, active as RoleHeld[], day),
    groupsWith: (needed) => groupsWith(active, needed),
  };
}

function groupsWith(roles: readonly RoleRow[], needed: Permission) {
  const strong = roles.filter((role) => atLeast(role.permission, needed));
  return {
    subtreePaths: strong.filter((role) => role.scope === 'subtree').map((role) => role.groupPath),
    groupIds: strong.filter((role) => role.scope === 'group').map((role) => role.groupId),
  };
}

/**
 * Whether the caller holds `needed` on a group where P has an active membership, or on the root
 * when P has none (docs/rules/visibility.md): who may see (read) and who may change (write) P.
 */
export async function holdsOnPerson(db: TenantDb, access: Access, personId: number, needed: Permission): Promise<boolean> {
  return holdsWhere(access, await activeGroupPaths(db, personId, access.day), needed);
}

/** holdsOnPerson, given the paths of P's active memberships. */
function holdsWhere(access: Access, personPaths: readonly string[], needed: Permission): boolean {
  if (personPaths.length === 0) return atLeast(access.on(access.root.path), needed);
  return personPaths.some((path) => atLeast(access.on(path), needed));
}

/**
 * Who sees P: P themself, P's guardians, those with `read` where P is (docs/rules/visibility.md),
 * and, one level further, whoever sees one of P's wards that way: a parent is reachable through
 * their children. One statement whoever P is, so that the answer's time tells nothing of P.
 */
export async function canSeePerson(db: TenantDb, access: Access, personId: number): Promise<boolean> {
  return (await seenPersonIds(db, access, [personId])).has(personId);
}

/** How the caller may change P: every field (write where P is), the profile only (a guardian), or not at all. */
export type ChangeRight = 'full' | 'profile' | null;

/**
 * The caller's right to change P, read now: `write` where P is (on the root for P without an
 * active membership, or, for such a parent, where one of their wards is), else a guardian's.
 */
export async function rightToChange(db: TenantDb, access: Access, personId: number): Promise<ChangeRight> {
  const paths = await activeGroupPaths(db, personId, access.day);
  if (holdsWhere(access, paths, 'write')) return 'full';
  if (paths.length === 0 && leadsAWard(access, await activeGroupPathsOfPeople(db, await wardIdsOf(db, personId), access.day))) return 'full';
  if (await isGuardian(db, access.personId, personId)) return 'profile';
  return null;
}

/** rightToChange for many people (a CSV import) in a few statements per 500, by id. */
export async function rightsToChange(db: TenantDb, access: Access, personIds: readonly number[]): Promise<Map<number, ChangeRight>> {
  const pathsOf = await activeGroupPathsByPerson(db, personIds, access.day);
  const unplaced = personIds.filter((id) => !pathsOf.has(id));
  const wardsOf = await wardIdsByGuardian(db, unplaced);
  const wardPathsOf = await activeGroupPathsByPerson(db, [...new Set([...wardsOf.values()].flat())], access.day);
  const ownWards = new Set(await wardIdsOf(db, access.personId));
  const leadsAWardOf = (id: number) => leadsAWard(access, (wardsOf.get(id) ?? []).flatMap((ward) => wardPathsOf.get(ward) ?? []));
  const rightOf = (id: number): ChangeRight => {
    const paths = pathsOf.get(id) ?? [];
    if (holdsWhere(access, paths, 'write') || (paths.length === 0 && leadsAWardOf(id))) return 'full';
    return ownWards.has(id) ? 'profile' : null;
  };
  return new Map(personIds.map((id) => [id, rightOf(id)]));
}

/** Whether the caller holds `write` on one of these groups (where a parent's children are). */
const leadsAWard = (access: Access, wardPaths: readonly string[]): boolean => wardPaths.some((path) => atLeast(access.on(path), 'write'));

/**
 * The login-field rule: who may change the `username` or `email` of P with a login (only P and the
 * tenant's administrators: an address is the key to an account), and the `email` of P without one
 * (whoever may change P fully, holds `write` on every group where P holds a role of `read` or more
 * that has not ended, and may change each of P's wards fully). Being P's guardian is never enough.
 */
export async function mayChangeLoginOf(db: TenantDb, access: Access, person: { id: number; hasLogin: boolean }, right: ChangeRight): Promise<boolean> {
  if (person.id === access.personId) return true;
  if (person.hasLogin) return isRootAdmin(access);
  // An administrator of the root alone (a role of `group` scope) who is P's guardian has no more than a guardian's right.
  if (right !== 'full') return false;
  const roles = await rolesOfPerson(db, person.id);
  const held = roles.filter((role) => (role.endOn === null || role.endOn >= access.day) && atLeast(role.permission, 'read'));
  if (!held.every((role) => atLeast(access.on(role.groupPath), 'write'))) return false;
  const rights = await rightsToChange(db, access, await wardIdsOf(db, person.id));
  return [...rights.values()].every((wardRight) => wardRight === 'full');
}

/** A query over people, aliased `p`. */
export type PeopleQuery = ExpressionBuilder<TenantDatabase & { p: TenantDatabase['users'] }, 'p'>;

/** The people (alias `p`) the caller sees, as one condition for a list's query. */
export function visiblePeople(eb: PeopleQuery, access: Access): Expression<SqlBool> {
  const readable = access.groupsWith('read');
  // `read` on the root's whole subtree sees everyone: no condition to test on each row.
  if (readable.subtreePaths.includes(access.root.path)) return sql<SqlBool>`1 = 1`;
  // The wards by their ids alone (no join to their rows): a test of the guardianship index only.
  const wardsSeen = eb
    .selectFrom('guardianships as pw')
    .select(sql.lit(1).as('one'))
    .whereRef('pw.guardian_id', '=', 'p.id')
    .where((inner) => seenDirectly(inner as unknown as PeopleQuery, access, 'pw.ward_id'));
  return eb.or([seenDirectly(eb, access, 'p.id'), eb.exists(wardsSeen)]);
}

/**
 * Who sees the person whose id is in column `id` by the rules before the parents' one: themself,
 * their guardians, `read` where they are, `read` on the root for someone without an active
 * membership.
 */
function seenDirectly(eb: PeopleQuery, access: Access, column: 'p.id' | 'pw.ward_id'): Expression<SqlBool> {
  const readable = access.groupsWith('read');
  const day = access.day;
  // One condition, written once for either column (the list's rows, or a parent's wards).
  const id = column as 'p.id';
  const parts: Expression<SqlBool>[] = [
    eb(id, '=', access.personId),
    eb(id, 'in', eb.selectFrom('guardianships').select('ward_id').where('guardian_id', '=', access.personId)),
  ];
  if (readable.subtreePaths.length + readable.groupIds.length > 0) {
    parts.push(
      eb.exists(
        eb
          .selectFrom('memberships as vm')
          .innerJoin('groups as vg', 'vg.id', 'vm.group_id')
          .select(sql.lit(1).as('one'))
          .whereRef('vm.person_id', '=', id)
          .where(activeOn('vm', day))
          .where(groupAmong('vg', readable.subtreePaths, readable.groupIds)),
      ),
    );
  }
  if (atLeast(access.on(access.root.path), 'read')) {
    parts.push(eb.not(eb.exists(eb.selectFrom('memberships as vm').select(sql.lit(1).as('one')).whereRef('vm.person_id', '=', id).where(activeOn('vm', day)))));
  }
  return eb.or(parts);
}

/** Which of `personIds` exist and the caller sees (canSeePerson for a list, in one statement). */
export async function seenPersonIds(db: TenantDb, access: Access, personIds: readonly number[]): Promise<Set<number>> {
  if (personIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('users as p')
    .select('p.id')
    .where('p.id', 'in', [...personIds])
    .where((eb) => visiblePeople(eb, access))
    .execute();
  return new Set(rows.map((row) => Number(row.id)));
}

/** An operator at the command line: every permission everywhere (the CLI is trusted like the server). */
export async function operatorAccess(db: TenantDb, day: Day): Promise<Access> {
  const root = await rootGroup(db);
  return {
    personId: 0,
    day,
    root,
    memberOf: [],
    on: () => 'admin',
    onSubtree: () => 'admin',
    groupsWith: () => ({ subtreePaths: [root.path], groupIds: [] }),
  };
}

/**
 * The caller and the people they speak for (their wards), and the groups those people belong to
 * today together with every group above them. Events are seen through it (the
 * members of G or below, participants, and the guardians of all of these), and a parent
 * registers their wards with it.
 */
export interface Household {
  personIds: number[];
  wardIds: number[];
  /** Ids of the groups at or above an active membership of one of `personIds`. */
  groupIdsAtOrAbove: number[];
}

const households = new WeakMap<Access, Promise<Household>>();

/**
 * The caller's household, read once per Access, that is once per request (an event's visibility
 * and the registration's rights both ask for it), like the Access itself (request.ts).
 */
export function householdOf(db: TenantDb, access: Access): Promise<Household> {
  let household = households.get(access);
  if (!household) {
    household = readHousehold(db, access);
    households.set(access, household);
  }
  return household;
}

async function readHousehold(db: TenantDb, access: Access): Promise<Household> {
  const wardIds = await wardIdsOf(db, access.personId);
  const personIds = [access.personId, ...wardIds];
  // The caller's own groups are in their Access already (as fresh as their permissions).
  const paths = [...access.memberOf, ...(await activeGroupPathsOfPeople(db, wardIds, access.day))];
  const groupIds = new Set(paths.flatMap(groupIdsOnPath));
  return { personIds, wardIds, groupIdsAtOrAbove: [...groupIds] };
}

// What other modules use of this module's queries: named here, so that its tables stay its own.
export { activeGroupPathsByPerson, guardiansOfWards, isGuardian, rootGroup, type GuardianContact } from './queries.js';
