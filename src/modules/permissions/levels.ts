import type { Day } from '../../lib/time.js';

/**
 * Role permissions (docs/rules/permissions.md): "what may person X do on group G today". A person's
 * permission on G is the highest `permission` among their memberships active that day whose group
 * is G, or, for roles with scope `subtree`, an ancestor of G. No such membership: `none`.
 *
 * Groups are located by their materialised path, the ids from the root down to the group itself
 * ("/1/4/9/"), so "G and below" is a prefix and no question walks the tree row by row.
 */
export const PERMISSIONS = ['none', 'read', 'write', 'admin'] as const;
export type Permission = (typeof PERMISSIONS)[number];
export type RoleScope = 'group' | 'subtree';

const RANK: Record<Permission, number> = { none: 0, read: 1, write: 2, admin: 3 };

/** Whether `held` is at least `needed` (none < read < write < admin). */
export const atLeast = (held: Permission, needed: Permission): boolean => RANK[held] >= RANK[needed];

/** The higher of two permissions. */
export const higher = (a: Permission, b: Permission): Permission => (RANK[a] >= RANK[b] ? a : b);

/** A membership as the permission rule reads it. */
export interface RoleHeld {
  /** Materialised path of the membership's group, e.g. "/1/4/". */
  groupPath: string;
  permission: Permission;
  scope: RoleScope;
  startOn: Day;
  endOn: Day | null;
}

/** Active on `day`: started (start_on <= day) and not ended (end_on null or day <= end_on). */
export const isActiveOn = (membership: Pick<RoleHeld, 'startOn' | 'endOn'>, day: Day): boolean =>
  membership.startOn <= day && (membership.endOn === null || day <= membership.endOn);

/** The ids a materialised path names: the groups above the group, and the group itself ("/1/4/9/" -> [1, 4, 9]). */
export const groupIdsOnPath = (path: string): number[] => path.split('/').filter(Boolean).map(Number);

/** Whether the group at `path` is the group at `ancestorPath` or below it. */
export const isAtOrBelow = (path: string, ancestorPath: string): boolean => path.startsWith(ancestorPath);

/** The permission that `roles` give on the group at `groupPath` on `day`. */
export function permissionOn(groupPath: string, roles: readonly RoleHeld[], day: Day): Permission {
  let best: Permission = 'none';
  for (const role of roles) {
    if (!isActiveOn(role, day)) continue;
    const reaches = role.groupPath === groupPath || (role.scope === 'subtree' && isAtOrBelow(groupPath, role.groupPath));
    if (reaches) best = higher(best, role.permission);
  }
  return best;
}

/**
 * The permission that `roles` give on the group at `groupPath` and on every group below it, now
 * and later: only roles of scope `subtree` held there or above reach them all. What a caller may
 * grant with a role of scope `subtree` (no one grants more than they hold).
 */
export function permissionOnSubtree(groupPath: string, roles: readonly RoleHeld[], day: Day): Permission {
  let best: Permission = 'none';
  for (const role of roles) {
    if (isActiveOn(role, day) && role.scope === 'subtree' && isAtOrBelow(groupPath, role.groupPath)) best = higher(best, role.permission);
  }
  return best;
}
