import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { hostOf, JSON_HEADERS, PASSWORD, type TestApp } from './app.js';

/** An event's fields, in this order. */
export const EVENT_FIELDS = [
  'id', 'group_id', 'name', 'description', 'location', 'starts_at', 'ends_at', 'registration_opens_at', 'registration_closes_at',
  'capacity', 'waiting_list', 'requires_approval', 'participants_count', 'waitlist_count', 'created_at', 'updated_at',
];

/** A participation's fields, in this order (`notes` left out for those who may not read it). */
export const PARTICIPATION_FIELDS = [
  'id', 'event_id', 'person_id', 'role', 'state', 'waitlist_position', 'attended', 'notes', 'person', 'created_at', 'updated_at',
];

/** The participant CSV's header columns. */
export const CSV_COLUMNS = [
  'id', 'person_id', 'firstname', 'lastname', 'role', 'state', 'waitlist_position', 'attended', 'is_vegetarian', 'can_swimm',
  'email', 'phonenumber', 'phonenumber_mobile', 'notes',
];

/** A moment (the API's format, `YYYY-MM-DDTHH:MM:SS.ffffffZ`) `days` days from now, on a whole hour. */
export function daysFromNow(days: number): string {
  const when = new Date(Date.now() + days * 86_400_000);
  when.setUTCMinutes(0, 0, 0);
  return when.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface Participation {
  id: number;
  event_id: number;
  person_id: number;
  role: string;
  state: string;
  waitlist_position: number | null;
  attended: boolean | null;
  notes?: string | null;
  person: { id: number; firstname: string; lastname: string };
}

/**
 * A tenant shaped like a scout association, built through the API by an administrator of the root:
 *
 *   root ── region ── troopA
 *        │         └─ troopB
 *        └─ other
 *
 * People with a login (tokens with every ability): `admin` (admin on the root), `regionleader` (leader on
 * region: manager of region's events), `troopleader` (leader on troopA: a member below region, no manager of
 * its events), `assistant` (assistant on troopA: reads troopA's people), `member` (member of troopA),
 * `observer` (a read/subtree role on the root: reads every group without being a member of it), `outsider`
 * (member of other), `parent` (member of other, guardian of `child`). `child` has no login and is a
 * member of troopA.
 */
export interface World {
  t: TestApp;
  root: number;
  region: number;
  troopA: number;
  troopB: number;
  other: number;
  ids: Record<string, number>;
  tokens: Record<string, string>;
  call(who: string, method: Method, url: string, payload?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** The same with a token given by value (e.g. one with narrow abilities). */
  callWith(token: string, method: Method, url: string, payload?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** Creates a person without a login through `POST /people` (as `admin`); returns the id. */
  person(group_id: number, firstname: string, lastname?: string, fields?: Record<string, unknown>): Promise<number>;
  /** Creates an event through `POST /events`; returns it. */
  event(who: string, fields: Record<string, unknown>): Promise<Record<string, unknown> & { id: number }>;
  /** `POST /events/{id}/participations`, expecting 201; returns the participation. */
  register(who: string, eventId: number, body: Record<string, unknown>): Promise<Participation>;
  /** Every participation of the event as a manager sees it, by id. */
  participations(eventId: number): Promise<Participation[]>;
  /** A token of `who` carrying only `abilities`. */
  tokenWith(who: string, abilities: string[]): Promise<string>;
}

export async function buildWorld(t: TestApp): Promise<World> {
  const root = await t.rootGroupId('demo');
  const admin = await t.addUser('demo', { username: 'admin', firstname: 'Ada', lastname: 'Admin' });
  await t.grant('demo', admin.id, root, 'admin');
  const tokens: Record<string, string> = { admin: await t.login('demo', 'admin', PASSWORD) };
  const ids: Record<string, number> = { admin: admin.id };

  const callWith: World['callWith'] = (token, method, url, payload, headers = {}) =>
    t.app.inject({
      method,
      url: `/api${url}`,
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}`, ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const call: World['call'] = (who, method, url, payload, headers) => callWith(tokens[who]!, method, url, payload, headers);
  const ok = async (answer: LightMyRequestResponse, status = 201) => {
    expect(answer.statusCode, answer.body).toBe(status);
    return answer.json().data;
  };

  const group = async (parent_id: number, name: string) => (await ok(await call('admin', 'POST', '/groups', { parent_id, name }))).group.id as number;
  const region = await group(root, 'Region');
  const troopA = await group(region, 'Troop A');
  const troopB = await group(region, 'Troop B');
  const other = await group(root, 'Other');
  await ok(await call('admin', 'POST', '/role-types', { key: 'observer', label: 'Observer', permission: 'read', scope: 'subtree' }));

  const withLogin: [string, number, string][] = [
    ['regionleader', region, 'leader'],
    ['troopleader', troopA, 'leader'],
    ['assistant', troopA, 'assistant'],
    ['member', troopA, 'member'],
    ['observer', root, 'observer'],
    ['outsider', other, 'member'],
    ['parent', other, 'member'],
  ];
  for (const [username, group_id, role_type] of withLogin) {
    const created = await ok(
      await call('admin', 'POST', '/people', {
        username, password: PASSWORD, email: `${username}@example.com`, firstname: username[0]!.toUpperCase() + username.slice(1), lastname: 'Scout',
        can_swimm: true, membership: { group_id, role_type },
      }),
    );
    ids[username] = created.person.id;
    tokens[username] = await t.login('demo', username, PASSWORD);
  }

  const person: World['person'] = async (group_id, firstname, lastname = 'Kid', fields = {}) =>
    (await ok(await call('admin', 'POST', '/people', { firstname, lastname, can_swimm: true, ...fields, membership: { group_id, role_type: 'member' } }))).person.id as number;
  ids.child = await person(troopA, 'Charlie', 'Child');
  await ok(await call('admin', 'POST', `/people/${ids.child}/guardians`, { guardian_id: ids.parent }));

  const event: World['event'] = async (who, fields) => (await ok(await call(who, 'POST', '/events', fields))).event;
  const register: World['register'] = async (who, eventId, body) =>
    (await ok(await call(who, 'POST', `/events/${eventId}/participations`, body))).participation as Participation;
  const participations: World['participations'] = async (eventId) => {
    const all: Participation[] = [];
    let cursor: string | null = null;
    do {
      const page = await call('admin', 'GET', `/events/${eventId}/participations?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      const data = await ok(page, 200);
      all.push(...(data.participations as Participation[]));
      cursor = data.next_cursor as string | null;
    } while (cursor);
    return all.sort((a, b) => a.id - b.id);
  };
  const tokenWith: World['tokenWith'] = async (who, abilities) =>
    (await ok(await call(who, 'POST', '/tokens', { name: `only ${abilities.join(' ')}`, abilities }))).plainTextToken as string;

  return { t, root, region, troopA, troopB, other, ids, tokens, call, callWith, person, event, register, participations, tokenWith };
}
