/**
 * Role permissions (groups.md section 2): a person's permission on a group is the highest
 * `permission` among their active memberships there (or above it, for roles with scope
 * `subtree`). This module answers "what may person X do on group G today" for every route.
 */
export const PERMISSIONS = ['none', 'read', 'write', 'admin'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const RANK: Record<Permission, number> = { none: 0, read: 1, write: 2, admin: 3 };

/** Whether `held` is at least `needed` (none < read < write < admin). */
export const atLeast = (held: Permission, needed: Permission): boolean => RANK[held] >= RANK[needed];

/** The higher of two permissions. */
export const higher = (a: Permission, b: Permission): Permission => (RANK[a] >= RANK[b] ? a : b);
