import { accessFrom, type Access, type Group } from './permissions.js';
import { client } from './session.js';

export * from './permissions.js';

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
  return accessFrom(personId, groups, roleTypes.data.data.role_types, memberships, today);
}

