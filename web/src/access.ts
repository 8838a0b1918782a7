import type { Session } from './context.js';
import { accessFrom, todayIn, type Group, type RoleType } from './permissions.js';
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

/**
 * The family's agenda as the app shows it: a year ahead (summer camps are planned in winter),
 * not the API's default of 90 days; one page of 50 events.
 */
export const familyAgenda = () => client.agenda({ limit: 50, to: new Date(Date.now() + 365 * 86_400_000).toISOString() });

/** Every group of the tenant (the tree, and what the permission rule needs): one page of 200 for most tenants. */
export const loadGroups = (): Promise<Group[] | null> =>
  readAll(async (cursor) => {
    const { data } = await client.groups.list({ limit: 200, ...(cursor ? { cursor } : {}) });
    return data ? { items: data.data.groups as Group[], next: data.data.next_cursor } : null;
  });

/**
 * What the app needs to know at sign-in, in three requests at once (the first screen's budget):
 * who this is and what they may do (GET /user/access), what is next for the family (the home
 * page's agenda) and the group tree. null data when the session is not (or no longer) valid.
 */
export async function loadSession() {
  const [access, agenda, groups] = await Promise.all([client.access(), familyAgenda(), loadGroups()]);
  if (!access.data || !groups) return { session: null, agenda: null, trouble: access.data ? null : access } as const;
  const data = access.data.data;
  const timeZone = data.tenant.timezone;
  const today = todayIn(timeZone);
  const session: Session = {
    personId: data.user.id,
    me: data.user,
    tenant: data.tenant,
    timeZone,
    today,
    tokenId: data.token_id,
    wards: data.wards,
    memberships: data.memberships,
    roleTypes: data.role_types,
    access: accessFrom(data.user.id, groups, data.role_types as RoleType[], data.memberships, today),
  };
  return { session, agenda: agenda.data?.data ?? null, trouble: null } as const;
}
