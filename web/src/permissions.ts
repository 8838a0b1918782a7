// What a person may do where (docs/rules/permissions.md): pure, so the tests run it without a browser.

export type Permission = 'none' | 'read' | 'write' | 'admin';
const ORDER: Permission[] = ['none', 'read', 'write', 'admin'];

/** Whether `held` is at least `needed`. */
export const covers = (held: Permission, needed: Permission): boolean => ORDER.indexOf(held) >= ORDER.indexOf(needed);

export interface Group {
  id: number;
  parent_id: number | null;
  name: string;
  kind: string;
  description?: string | null;
}

/**
 * What the person logged in may do where, worked out by the service's permission rule, from their
 * active memberships and the role types. The app offers only what this allows; the API checks
 * again on every call.
 */
export interface Access {
  personId: number;
  groups: Map<number, Group>;
  permissionOn(groupId: number): Permission;
  atLeast(groupId: number, needed: Permission): boolean;
}

export interface RoleType {
  key: string;
  permission: Permission;
  scope: 'group' | 'subtree';
}

export interface Membership {
  group_id: number;
  role_type: string;
  start_on: string;
  end_on: string | null;
}

/**
 * A person's permission on each group: the highest permission among their
 * memberships active `today`, each reaching its own group (scope `group`) or its whole subtree.
 */
export function accessFrom(personId: number, groups: Group[], roleTypes: RoleType[], memberships: Membership[], today: string): Access {
  const byId = new Map(groups.map((group) => [group.id, group]));
  const roles = new Map(roleTypes.map((role) => [role.key, role]));
  const active = memberships.filter((m) => m.start_on <= today && (m.end_on === null || m.end_on >= today));
  const ancestorsOf = (id: number): number[] => {
    const chain: number[] = [];
    for (let at = byId.get(id); at; at = at.parent_id === null ? undefined : byId.get(at.parent_id)) chain.push(at.id);
    return chain;
  };
  const permissionOn = (groupId: number): Permission => {
    const chain = ancestorsOf(groupId);
    let best: Permission = 'none';
    for (const membership of active) {
      const role = roles.get(membership.role_type);
      if (!role) continue;
      const reaches = role.scope === 'group' ? membership.group_id === groupId : chain.includes(membership.group_id);
      if (reaches && !covers(best, role.permission)) best = role.permission;
    }
    return best;
  };
  return { personId, groups: byId, permissionOn, atLeast: (groupId, needed) => covers(permissionOn(groupId), needed) };
}

/** Today as YYYY-MM-DD in the tenant's time zone. */
export const todayIn = (timeZone: string): string => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
