import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

/**
 * A tenant for the members list, built as an administrator would:
 *
 *   root ── region ── troopA ── patrol
 *        │         └─ troopB
 *        └─ other
 *
 * With a login: `admin` (admin on the root), `leader` (leader of region), `assistant` (assistant of
 * troopA: reads troopA alone), `member` (member of troopA, also `helper` there: a role type with
 * `read` of scope group), `outsider` (member of other).
 * Without one, in troopA: Émile Berg (2014-05-01), Bea Berg (no birthday), Anna Arnold (2016-01-02,
 * also a member of troopB), Zoe Zeller (2012-12-12, also assistant); Olga Old (her only
 * membership, in troopA, ended in 2020); in troopB: Carl Cohn, Fred Future (also a member of troopA
 * from 2999 on), `=cmd` Formula (phone +41 31 000 00 00); in patrol: Pat Patrol (2013-03-03).
 */
export interface MembersWorld {
  t: TestApp;
  groups: Record<'root' | 'region' | 'troopA' | 'troopB' | 'patrol' | 'other', number>;
  ids: Record<string, number>;
  call(who: string, url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  callWith(token: string, url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  tokens: Record<string, string>;
}

export async function buildMembersWorld(): Promise<MembersWorld> {
  const t = await buildTestApp();
  const root = await t.rootGroupId('demo');
  const ids: Record<string, number> = {};
  const tokens: Record<string, string> = {};
  const callWith = (token: string, url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}`, ...headers } });
  const call = (who: string, url: string, headers: Record<string, string> = {}) => callWith(tokens[who]!, url, headers);
  const send = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
    const answer = await t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens.admin}` }, payload });
    expect(answer.statusCode, answer.body).toBeLessThan(300);
    return answer.json().data;
  };

  ids.admin = (await t.addUser('demo', { username: 'admin', firstname: 'Ada', lastname: 'Admin' })).id;
  await t.grant('demo', ids.admin, root, 'admin');
  tokens.admin = await t.login('demo', 'admin', PASSWORD);
  const group = async (parent_id: number, name: string) => (await send('POST', '/groups', { parent_id, name })).group.id as number;
  const region = await group(root, 'Region');
  const troopA = await group(region, 'Troop A');
  const troopB = await group(region, 'Troop B');
  const patrol = await group(troopA, 'Patrol');
  const other = await group(root, 'Other');
  await send('POST', '/role-types', { key: 'helper', label: 'Helper', permission: 'read', scope: 'group' });

  const withLogin: [string, string, string, number, string][] = [
    ['leader', 'Lea', 'Leader', region, 'leader'],
    ['assistant', 'Asa', 'Assistant', troopA, 'assistant'],
    ['member', 'Max', 'Member', troopA, 'member'],
    ['outsider', 'Otto', 'Outsider', other, 'member'],
  ];
  for (const [username, firstname, lastname, groupId, roleType] of withLogin) {
    ids[username] = (await t.addUser('demo', { username, firstname, lastname })).id;
    await t.grant('demo', ids[username]!, groupId, roleType);
    tokens[username] = await t.login('demo', username, PASSWORD);
  }
  await t.grant('demo', ids.member!, troopA, 'helper');

  const person = async (key: string, firstname: string, lastname: string, groupId: number, fields: Record<string, unknown> = {}) => {
    ids[key] = (await send('POST', '/people', { firstname, lastname, ...fields, membership: { group_id: groupId, role_type: 'member' } })).person.id as number;
  };
  await person('emile', 'Émile', 'Berg', troopA, { birthday: '2014-05-01' });
  await person('bea', 'Bea', 'Berg', troopA);
  await person('anna', 'Anna', 'Arnold', troopA, { birthday: '2016-01-02' });
  await person('zoe', 'Zoe', 'Zeller', troopA, { birthday: '2012-12-12' });
  await person('olga', 'Olga', 'Old', troopA);
  await person('carl', 'Carl', 'Cohn', troopB);
  await person('fred', 'Fred', 'Future', troopB);
  await person('formula', '=cmd', 'Formula', troopB, { phonenumber: '+41 31 000 00 00', is_vegetarian: true });
  await person('pat', 'Pat', 'Patrol', patrol, { birthday: '2013-03-03' });
  await send('POST', '/memberships', { person_id: ids.anna, group_id: troopB, role_type: 'member' });
  await send('POST', '/memberships', { person_id: ids.zoe, group_id: troopA, role_type: 'assistant' });
  await send('POST', '/memberships', { person_id: ids.fred, group_id: troopA, role_type: 'member', start_on: '2999-01-01' });
  const olgas = (await send('POST', '/memberships', { person_id: ids.olga, group_id: other, role_type: 'member', start_on: '2019-01-01', end_on: '2020-12-31' })).membership;
  // Olga's troopA membership ends in 2020 too: she is left with no active membership at all.
  const current = (await call('admin', `/people/${ids.olga}/memberships`)).json().data.memberships.find((m: { id: number }) => m.id !== olgas.id);
  await send('PATCH', `/memberships/${current.id}`, { start_on: '2019-01-01', end_on: '2020-12-31' });

  return { t, groups: { root, region, troopA, troopB, patrol, other }, ids, call, callWith, tokens };
}

export interface MemberItem {
  person: { id: number; firstname: string; lastname: string; birthday: string | null };
  memberships: { id: number; group_id: number; role_type: string; group_name: string; start_on: string; end_on: string | null }[];
}

/** The first names of a JSON page, in its order. */
export const firstnames = (answer: LightMyRequestResponse): string[] => (answer.json().data.members as MemberItem[]).map((item) => item.person.firstname);
