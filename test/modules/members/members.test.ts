import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMembersWorld, firstnames, type MemberItem, type MembersWorld } from './world.js';

const PERSON_FIELDS = [
  'id', 'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile', 'street',
  'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'created_at', 'updated_at', 'birthday', 'has_login',
];
const MEMBERSHIP_FIELDS = ['id', 'person_id', 'group_id', 'role_type', 'label', 'start_on', 'end_on', 'group_name', 'created_at', 'updated_at'];

describe('GET /groups/{id}/members', () => {
  let w: MembersWorld;
  beforeAll(async () => {
    w = await buildMembersWorld();
  }, 60_000);
  afterAll(() => w?.t.close());

  const members = (who: string, group: number, query = '') => w.call(who, `/groups/${group}/members${query}`);
  const names = async (who: string, group: number, query = '') => {
    const answer = await members(who, group, query);
    expect(answer.statusCode, answer.body).toBe(200);
    return firstnames(answer);
  };
  const itemOf = (answer: { json(): { data: { members: MemberItem[] } } }, firstname: string) =>
    answer.json().data.members.find((item) => item.person.firstname === firstname)!;

  it('lists the active members of the group, each person with the memberships the filters select, and the total', async () => {
    const answer = await members('leader', w.groups.troopA);
    expect(answer.statusCode, answer.body).toBe(200);
    const { data } = answer.json();
    expect(Object.keys(data)).toEqual(['members', 'next_cursor', 'total']);
    expect(data.next_cursor).toBeNull();
    expect(firstnames(answer)).toEqual(['Anna', 'Asa', 'Bea', 'Émile', 'Max', 'Zoe']);
    expect(data.total).toBe(6);
    const zoe = itemOf(answer, 'Zoe');
    expect(Object.keys(zoe)).toEqual(['person', 'memberships']);
    expect(Object.keys(zoe.person)).toEqual(PERSON_FIELDS);
    expect(zoe.person).toMatchObject({ id: w.ids.zoe, lastname: 'Zeller', birthday: '2012-12-12', has_login: false });
    expect(zoe.memberships.map((m) => Object.keys(m))).toEqual([MEMBERSHIP_FIELDS, MEMBERSHIP_FIELDS]);
    expect(zoe.memberships.map((m) => [m.role_type, m.group_id, m.group_name, m.end_on])).toEqual([
      ['member', w.groups.troopA, 'Troop A', null],
      ['assistant', w.groups.troopA, 'Troop A', null],
    ]);
    // Anna's membership of troopB is not selected by troopA alone.
    expect(itemOf(answer, 'Anna').memberships.map((m) => m.group_name)).toEqual(['Troop A']);
  });

  it('takes the whole subtree with below=true, and selects by role type', async () => {
    const below = await members('leader', w.groups.region, '?below=true');
    expect(firstnames(below)).toEqual(['Anna', 'Asa', 'Bea', 'Émile', 'Carl', '=cmd', 'Fred', 'Lea', 'Max', 'Pat', 'Zoe']);
    expect(itemOf(below, 'Anna').memberships.map((m) => m.group_name)).toEqual(['Troop A', 'Troop B']);
    expect(itemOf(below, 'Lea').memberships.map((m) => [m.role_type, m.group_name])).toEqual([['leader', 'Region']]);
    // Fred's troopA membership has not started: only troopB's is selected.
    expect(itemOf(below, 'Fred').memberships.map((m) => m.group_name)).toEqual(['Troop B']);
    expect(below.json().data.total).toBe(11);
    // Without below, the region's own members only.
    expect(await names('leader', w.groups.region)).toEqual(['Lea']);
    expect(await names('leader', w.groups.troopA, '?role_type=assistant')).toEqual(['Asa', 'Zoe']);
    const assistants = await members('leader', w.groups.troopA, '?role_type=assistant');
    expect(itemOf(assistants, 'Zoe').memberships.map((m) => m.role_type)).toEqual(['assistant']);
    expect(await names('leader', w.groups.region, '?below=true&role_type=helper')).toEqual(['Max']);
    expect(await names('leader', w.groups.troopA, '?role_type=nobody')).toEqual([]);
  });

  it('finds by q in names (case and accents aside), username and e-mail', async () => {
    expect(await names('leader', w.groups.troopA, '?q=EMILE')).toEqual(['Émile']);
    expect(await names('leader', w.groups.troopA, '?q=berg')).toEqual(['Bea', 'Émile']);
    expect(await names('leader', w.groups.troopA, '?q=member%40example')).toEqual(['Max']);
    expect(await names('leader', w.groups.troopA, '?q=ASSIST')).toEqual(['Asa']);
    // LIKE's wildcards are plain text here.
    expect(await names('leader', w.groups.troopA, '?q=%25')).toEqual([]);
    const counted = await members('leader', w.groups.region, '?below=true&q=berg');
    expect(counted.json().data.total).toBe(2);
  });

  it('selects by day with active_on, and every membership with all=true, listing only people the caller sees', async () => {
    // In 2020 only the members granted in 2000 and Olga were there.
    expect(await names('admin', w.groups.troopA, '?active_on=2020-06-01')).toEqual(['Asa', 'Max', 'Olga']);
    expect(await names('admin', w.groups.troopA, '?active_on=2999-06-01')).toEqual(['Anna', 'Asa', 'Bea', 'Émile', 'Fred', 'Max', 'Zoe']);
    const all = await members('admin', w.groups.troopA, '?all=true');
    expect(firstnames(all)).toEqual(['Anna', 'Asa', 'Bea', 'Émile', 'Fred', 'Max', 'Olga', 'Zoe']);
    expect(itemOf(all, 'Olga').memberships.map((m) => [m.group_name, m.end_on])).toEqual([['Troop A', '2020-12-31']]);
    expect(itemOf(all, 'Fred').memberships.map((m) => m.start_on)).toEqual(['2999-01-01']);
    // The leader does not see Olga, whose memberships have all ended: she is not listed, nor counted.
    const led = await members('leader', w.groups.troopA, '?all=true');
    expect(firstnames(led)).toEqual(['Anna', 'Asa', 'Bea', 'Émile', 'Fred', 'Max', 'Zoe']);
    expect(led.json().data.total).toBe(7);
    // The assistant reads troopA only: Pat (in the patrol below it) is someone they do not see.
    expect(await names('assistant', w.groups.troopA, '?below=true')).toEqual(['Anna', 'Asa', 'Bea', 'Émile', 'Max', 'Zoe']);
    expect(await names('leader', w.groups.troopA, '?below=true')).toEqual(['Anna', 'Asa', 'Bea', 'Émile', 'Max', 'Pat', 'Zoe']);
  });

  it('sorts by name either way, by birthday with unknown birthdays last in both directions, and by the strongest role', async () => {
    expect(await names('leader', w.groups.troopA, '?sort=name')).toEqual(['Anna', 'Asa', 'Bea', 'Émile', 'Max', 'Zoe']);
    expect(await names('leader', w.groups.troopA, '?sort=-name')).toEqual(['Zoe', 'Max', 'Émile', 'Bea', 'Asa', 'Anna']);
    expect(await names('leader', w.groups.troopA, '?sort=birthday')).toEqual(['Zoe', 'Émile', 'Anna', 'Asa', 'Bea', 'Max']);
    expect(await names('leader', w.groups.troopA, '?sort=-birthday')).toEqual(['Anna', 'Émile', 'Zoe', 'Asa', 'Bea', 'Max']);
    // assistant (read) before helper (read, a later key) before member (none); then by name.
    expect(await names('leader', w.groups.troopA, '?sort=role')).toEqual(['Asa', 'Zoe', 'Max', 'Anna', 'Bea', 'Émile']);
    // The strongest of the *selected* memberships: with role_type=member everyone is a member.
    expect(await names('leader', w.groups.troopA, '?sort=role&role_type=member')).toEqual(['Anna', 'Bea', 'Émile', 'Max', 'Zoe']);
    expect(await names('leader', w.groups.region, '?below=true&sort=role')).toEqual(['Lea', 'Asa', 'Zoe', 'Max', 'Anna', 'Bea', 'Émile', 'Carl', '=cmd', 'Fred', 'Pat']);
  });

  it('pages by keyset in every order: no one skipped or repeated, the total on the first page only', async () => {
    for (const sort of ['name', '-name', 'birthday', '-birthday', 'role']) {
      const query = `?below=true&sort=${sort}`;
      const whole = await names('leader', w.groups.region, query);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const answer = await members('leader', w.groups.region, `${query}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(answer.statusCode, answer.body).toBe(200);
        const data = answer.json().data;
        expect(data.members.length).toBeLessThanOrEqual(3);
        if (pages === 0) expect(data.total, sort).toBe(11);
        else expect(Object.keys(data), sort).toEqual(['members', 'next_cursor']);
        seen.push(...firstnames(answer));
        cursor = data.next_cursor;
        pages++;
      } while (cursor);
      expect(seen, sort).toEqual(whole);
      expect(pages, sort).toBe(4);
    }
  });

  it('keeps its place while people come and go between pages', async () => {
    const first = (await members('admin', w.groups.troopB, '?limit=2')).json().data;
    expect(first.members.map((item: MemberItem) => item.person.firstname)).toEqual(['Anna', 'Carl']);
    // Someone who sorts before the cursor arrives: the next page neither repeats nor skips.
    const added = await w.t.app.inject({
      method: 'POST', url: '/api/people', headers: { 'content-type': 'application/json', accept: 'application/json', host: 'demo.localhost', authorization: `Bearer ${w.tokens.admin}` },
      payload: { firstname: 'Aaron', lastname: 'Aal', membership: { group_id: w.groups.troopB, role_type: 'member' } },
    });
    expect(added.statusCode).toBe(201);
    const next = await members('admin', w.groups.troopB, `?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(firstnames(next)).toEqual(['=cmd', 'Fred']);
    await w.t.app.inject({
      method: 'DELETE', url: `/api/people/${added.json().data.person.id}`, headers: { accept: 'application/json', host: 'demo.localhost', authorization: `Bearer ${w.tokens.admin}` },
    });
  });

  it('refuses a cursor of another order or another group, and one it did not issue', async () => {
    const cursor = (await members('leader', w.groups.troopA, '?limit=2')).json().data.next_cursor as string;
    for (const query of [`?sort=role&limit=2&cursor=${encodeURIComponent(cursor)}`, `?limit=2&cursor=${encodeURIComponent(`${cursor}x`)}`, '?cursor=abc']) {
      const answer = await members('leader', w.groups.troopA, query);
      expect(answer.statusCode, query).toBe(422);
      expect(Object.keys(answer.json().errors), query).toEqual(['cursor']);
    }
    const elsewhere = await members('leader', w.groups.troopB, `?limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(elsewhere.statusCode).toBe(422);
  });

  it('needs read on the group (403), an existing group (404) and people:read (403)', async () => {
    // The member reads troopA (as a helper there), not troopB.
    for (const who of ['member', 'outsider']) {
      const answer = await members(who, w.groups.troopB);
      expect(answer.statusCode, who).toBe(403);
      expect(answer.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    }
    // The assistant reads troopA, not the region above it.
    expect((await members('assistant', w.groups.region)).statusCode).toBe(403);
    expect((await members('assistant', w.groups.troopA)).statusCode).toBe(200);
    for (const id of ['999999', 'abc']) {
      const missing = await w.call('leader', `/groups/${id}/members`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ success: false, message: 'Group not found.' });
    }
    const token = (
      await w.t.app.inject({
        method: 'POST', url: '/api/tokens', headers: { 'content-type': 'application/json', accept: 'application/json', host: 'demo.localhost', authorization: `Bearer ${w.tokens.leader}` },
        payload: { name: 'groups only', abilities: ['groups:read'] },
      })
    ).json().data.plainTextToken as string;
    const refused = await w.callWith(token, `/groups/${w.groups.troopA}/members`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ success: false, message: 'Invalid ability provided.' });
    expect((await w.t.app.inject({ method: 'GET', url: `/api/groups/${w.groups.troopA}/members`, headers: { accept: 'application/json', host: 'demo.localhost' } })).statusCode).toBe(401);
  });

  it('answers 422 on unknown and malformed query parameters, in Laravel words', async () => {
    const cases: [string, Record<string, string[]>][] = [
      ['?foo=1', { foo: ['The foo field is prohibited.'] }],
      ['?sort=age', { sort: ['The selected sort is invalid.'] }],
      ['?format=pdf', { format: ['The selected format is invalid.'] }],
      ['?format=ics', { format: ['The selected format is invalid.'] }],
      ['?limit=0', { limit: ['The limit field must be at least 1.'] }],
      ['?limit=201', { limit: ['The limit field must not be greater than 200.'] }],
      ['?active_on=2026-02-30', { active_on: ['The active on field must be a valid date.'] }],
      ['?below=maybe', { below: ['The below field must be true or false.'] }],
      ['?all=1x', { all: ['The all field must be true or false.'] }],
      ['?q=', { q: ['The q field is required.'] }],
    ];
    for (const [query, errors] of cases) {
      const answer = await members('leader', w.groups.troopA, query);
      expect(answer.statusCode, query).toBe(422);
      expect(answer.json().errors, query).toEqual(errors);
    }
  });
});
