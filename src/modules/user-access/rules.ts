import type { TenantDb } from '../../db/types.js';
import { isActiveOn, higher, type Permission, type RoleScope } from '../permissions/levels.js';
import { readRoleFacts, type Access } from '../permissions/rules.js';
import { activeMembershipsWithGroups } from '../memberships/rules.js';
import { listWards } from '../people/rules.js';
import { listRoleTypes } from '../role-types/rules.js';
import { toApiRoleType } from '../role-types/schemas.js';
import type { UserAccess } from './schemas.js';

// GET /user/access: what a client needs to know what it may offer, in one request (a web app's
// first screen must not spend its budget on six). The API checks every call again all the same.

/** A permission the caller holds on one group: the strongest of their active roles there. */
export interface HeldPermission {
  group_id: number;
  permission: Permission;
  scope: RoleScope;
}

/**
 * One entry per group where the caller holds an active membership today: the strongest permission
 * among those roles, and its scope (`subtree` over `group` when two roles give the same permission,
 * since it reaches further). By group id.
 */
export async function heldPermissions(db: TenantDb, access: Access): Promise<HeldPermission[]> {
  const { roles } = await readRoleFacts(db, access.personId);
  const byGroup = new Map<number, HeldPermission>();
  for (const role of roles) {
    if (!isActiveOn(role, access.day)) continue;
    const held = byGroup.get(role.groupId);
    const stronger = !held || higher(held.permission, role.permission) !== held.permission;
    const wider = held !== undefined && held.permission === role.permission && role.scope === 'subtree';
    if (stronger || wider) byGroup.set(role.groupId, { group_id: role.groupId, permission: role.permission, scope: role.scope });
  }
  return [...byGroup.values()].sort((a, b) => a.group_id - b.group_id);
}

/** Everything of GET /user/access but the tenant and the caller's names, which the request has. */
export async function accessSummary(db: TenantDb, access: Access): Promise<Pick<UserAccess, 'role_types' | 'memberships' | 'permissions' | 'wards'>> {
  const [roleTypes, memberships, permissions, wards] = await Promise.all([
    listRoleTypes(db),
    activeMembershipsWithGroups(db, access.personId, access.day),
    heldPermissions(db, access),
    listWards(db, access.personId),
  ]);
  return {
    role_types: roleTypes.map(toApiRoleType),
    memberships: memberships.map((row) => ({
      id: Number(row.id),
      group_id: Number(row.group_id),
      group_name: row.group_name,
      role_type: row.role_type,
      start_on: row.start_on,
      end_on: row.end_on,
    })),
    permissions,
    wards: wards.map((ward) => ({ id: Number(ward.id), firstname: ward.firstname, lastname: ward.lastname })),
  };
}
