import type { Permission, RoleScope } from './levels.js';
import { statementChunks } from '../../db/statement-chunks.js';
import type { TenantDb } from '../../db/types.js';
import type { Day } from '../../lib/time.js';
import { activeOn } from '../../db/conditions.js';

// The SQL of the permission rule. It reads memberships, groups and role types: the one place
// besides those modules that does, because "what may X do" joins all three.

export interface RoleRow {
  groupId: number;
  groupPath: string;
  permission: Permission;
  scope: RoleScope;
  startOn: Day;
  endOn: Day | null;
}

/** Every membership of the person (all dates), with its group's path and its role's permission. */
export async function rolesOfPerson(db: TenantDb, personId: number): Promise<RoleRow[]> {
  return (await rolesQuery(db, personId).execute()).map(toRoleRow);
}

/**
 * The person's memberships (as rolesOfPerson) and the root group, in one statement: what every
 * miss of the role memory reads (a storm of first requests pays one round trip, not two).
 */
export async function rolesAndRootOf(db: TenantDb, personId: number): Promise<{ roles: RoleRow[]; root: { id: number; path: string } }> {
  const rows = await db
    .selectFrom('groups as root')
    .leftJoin(rolesQuery(db, personId).as('held'), (join) => join.onTrue())
    .select(['root.id as root_id', 'root.path as root_path', 'held.group_id', 'held.path', 'held.permission', 'held.scope', 'held.start_on', 'held.end_on'])
    .where('root.parent_id', 'is', null)
    .execute();
  const [first] = rows;
  if (!first) throw new Error('the tenant has no root group');
  const roles = rows.flatMap((row) => (row.group_id === null ? [] : [toRoleRow(row as RoleQueryRow)]));
  return { roles, root: { id: Number(first.root_id), path: first.root_path } };
}

const rolesQuery = (db: TenantDb, personId: number) =>
  db
    .selectFrom('memberships as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .innerJoin('role_types as r', 'r.key', 'm.role_type')
    .select(['m.group_id', 'g.path', 'r.permission', 'r.scope', 'm.start_on', 'm.end_on'])
    .where('m.person_id', '=', personId);

type RoleQueryRow = Awaited<ReturnType<ReturnType<typeof rolesQuery>['execute']>>[number];

const toRoleRow = (row: RoleQueryRow): RoleRow => ({
  groupId: Number(row.group_id),
  groupPath: row.path,
  permission: row.permission,
  scope: row.scope,
  startOn: row.start_on,
  endOn: row.end_on,
});

/** The paths of the groups where the person has a membership active on `day`. */
export async function activeGroupPaths(db: TenantDb, personId: number, day: Day): Promise<string[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .select('g.path')
    .where('m.person_id', '=', personId)
    .where(activeOn('m', day))
    .execute();
  return rows.map((row) => row.path);
}

/** activeGroupPaths of many people at once (a CSV import): each person's paths, by id. */
export async function activeGroupPathsByPerson(db: TenantDb, personIds: readonly number[], day: Day): Promise<Map<number, string[]>> {
  const byPerson = new Map<number, string[]>();
  for (const part of statementChunks(personIds)) {
    const rows = await db
      .selectFrom('memberships as m')
      .innerJoin('groups as g', 'g.id', 'm.group_id')
      .select(['m.person_id', 'g.path'])
      .where('m.person_id', 'in', part)
      .where(activeOn('m', day))
      .execute();
    for (const row of rows) {
      const id = Number(row.person_id);
      byPerson.set(id, [...(byPerson.get(id) ?? []), row.path]);
    }
  }
  return byPerson;
}

export async function rootGroup(db: TenantDb): Promise<{ id: number; path: string }> {
  const row = await db.selectFrom('groups').select(['id', 'path']).where('parent_id', 'is', null).executeTakeFirstOrThrow();
  return { id: Number(row.id), path: row.path };
}

export async function isGuardian(db: TenantDb, guardianId: number, wardId: number): Promise<boolean> {
  const row = await db
    .selectFrom('guardianships')
    .select('id')
    .where('guardian_id', '=', guardianId)
    .where('ward_id', '=', wardId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The ids of the people `guardianId` is guardian of. */
export async function wardIdsOf(db: TenantDb, guardianId: number): Promise<number[]> {
  const rows = await db.selectFrom('guardianships').select('ward_id').where('guardian_id', '=', guardianId).execute();
  return rows.map((row) => Number(row.ward_id));
}

/** The wards of each of `guardianIds` that has any, by guardian. */
export async function wardIdsByGuardian(db: TenantDb, guardianIds: readonly number[]): Promise<Map<number, number[]>> {
  const byGuardian = new Map<number, number[]>();
  for (const part of statementChunks(guardianIds)) {
    const rows = await db.selectFrom('guardianships').select(['guardian_id', 'ward_id']).where('guardian_id', 'in', part).execute();
    for (const row of rows) {
      const id = Number(row.guardian_id);
      byGuardian.set(id, [...(byGuardian.get(id) ?? []), Number(row.ward_id)]);
    }
  }
  return byGuardian;
}

/** The guardians of each of `wardIds`, with their numbers and e-mail (for emergencies at a camp), by name. */
export async function guardiansOfWards(db: TenantDb, wardIds: readonly number[]) {
  if (wardIds.length === 0) return new Map<number, GuardianContact[]>();
  const rows = await db
    .selectFrom('guardianships as gs')
    .innerJoin('users as p', 'p.id', 'gs.guardian_id')
    .select(['gs.ward_id', 'p.id', 'p.firstname', 'p.lastname', 'p.phonenumber', 'p.phonenumber_mobile', 'p.email'])
    .where('gs.ward_id', 'in', [...wardIds])
    .orderBy('p.lastname_key')
    .orderBy('p.firstname_key')
    .orderBy('p.id')
    .execute();
  const byWard = new Map<number, GuardianContact[]>();
  for (const { ward_id: wardId, ...guardian } of rows) {
    const list = byWard.get(Number(wardId)) ?? [];
    list.push({ ...guardian, id: Number(guardian.id) });
    byWard.set(Number(wardId), list);
  }
  return byWard;
}

export interface GuardianContact {
  id: number;
  firstname: string;
  lastname: string;
  phonenumber: string | null;
  phonenumber_mobile: string | null;
  email: string | null;
}

/** The paths of the groups where any of `personIds` has a membership active on `day`. */
export async function activeGroupPathsOfPeople(db: TenantDb, personIds: readonly number[], day: Day): Promise<string[]> {
  if (personIds.length === 0) return [];
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .select('g.path')
    .distinct()
    .where('m.person_id', 'in', personIds)
    .where(activeOn('m', day))
    .execute();
  return rows.map((row) => row.path);
}
