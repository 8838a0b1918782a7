import { client } from './session.js';

export type Permission = 'none' | 'read' | 'write' | 'admin';
const ORDER: Permission[] = ['none', 'read', 'write', 'admin'];

/** Whether `held` is at least `needed`. */
export const covers = (held: Permission, needed: Permission): boolean => ORDER.indexOf(held) >= ORDER.indexOf(needed);

export interface Group {
  id: number;
  parent_id: number | null;
  name: string;
  kind: string;
}

/**
 * What the person logged in may do where, worked out as groups.md section 2 says, from their
 * active memberships and the role types. The app offers only what this allows; the API checks
 * again on every call.
 */
export interface Access {
  personId: number;
  groups: Map<number, Group>;
  permissionOn(groupId: number): Permission;
  atLeast(groupId: number, needed: Permission): boolean;
}

/** Reads every page of a keyset-paged list. */
export async function readAll<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null } | null>): Promise<T[] | null> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const next = await page(cursor);
    if (!next) return null;
    all.push(...next.items);
    if (!next.next) return all;
    cursor = next.next;
  }
}

export async function loadAccess(personId: number, today: string): Promise<Access | null> {
  const [groups, roleTypes, memberships] = await Promise.all([
    readAll(async (cursor) => {
      const { data } = await client.groups.list({ limit: 200, ...(cursor ? { cursor } : {}) });
      return data ? { items: data.data.groups as Group[], next: data.data.next_cursor } : null;
    }),
    client.roleTypes.list(),
    readAll(async (cursor) => {
      const { data } = await client.people.memberships(personId, { limit: 200, ...(cursor ? { cursor } : {}) });
      return data ? { items: data.data.memberships, next: data.data.next_cursor } : null;
    }),
  ]);
  if (!groups || !roleTypes.data || !memberships) return null;
  const byId = new Map(groups.map((group) => [group.id, group]));
  const roles = new Map(roleTypes.data.data.role_types.map((role) => [role.key, role]));
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
      if (reaches && ORDER.indexOf(role.permission) > ORDER.indexOf(best)) best = role.permission;
    }
    return best;
  };
  return {
    personId,
    groups: byId,
    permissionOn,
    atLeast: (groupId, needed) => covers(permissionOn(groupId), needed),
  };
}

/** Today as YYYY-MM-DD in the tenant's time zone. */
export const todayIn = (timeZone: string): string => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
