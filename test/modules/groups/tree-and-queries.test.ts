import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

/** Query parameters, moves, ETags, guardians that a caller sees. */
describe('the group tree and the conventions of every endpoint', () => {
  let t: TestApp;
  let root: number;
  const tokens: Record<string, string> = {};
  const call = (who: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens[who]}` }, ...(payload ? { payload } : {}) });
  const group = async (parent_id: number, name: string) => (await call('admin', 'POST', '/groups', { parent_id, name })).json().data.group.id as number;

  beforeEach(async () => {
    t = await buildTestApp();
    root = await t.rootGroupId('demo');
    const admin = await t.addUser('demo', { username: 'admin' });
    await t.grant('demo', admin.id, root, 'admin');
    tokens.admin = await t.login('demo', 'admin', PASSWORD);
  });
  afterEach(() => t.close());

  it('refuses unknown query parameters on endpoints that take none', async () => {
    const troop = await group(root, 'Troop');
    for (const [method, url] of [['GET', `/groups/${troop}?foo=1`], ['PATCH', `/groups/${troop}?foo=1`], ['GET', '/role-types?foo=1'], ['POST', '/groups?foo=1']] as const) {
      const answer = await call('admin', method, url, method === 'GET' ? undefined : { parent_id: root, name: 'X' });
      expect(answer.statusCode, `${method} ${url}`).toBe(422);
      expect(answer.json().errors).toEqual({ foo: ['The foo field is prohibited.'] });
    }
  });

  it('answers a role type key with U+0000 like any unknown key, never a 5xx', async () => {
    expect((await call('admin', 'GET', '/people?role_type=%00')).statusCode).toBe(422);
    expect((await call('admin', 'PATCH', '/role-types/a%00b', { label: 'x' })).json()).toEqual({ success: false, message: 'Role type not found.' });
    const grant = await call('admin', 'POST', '/memberships', { person_id: 1, group_id: root, role_type: 'a\u0000' });
    expect(grant.statusCode).toBe(422);
  });

  it('changes the ETag of every group below a moved one, and lets no two crossing moves make a cycle', async () => {
    const a = await group(root, 'A');
    const b = await group(root, 'B');
    const child = await group(a, 'Child');
    const before = (await call('admin', 'GET', `/groups/${child}`)).headers.etag;
    expect((await call('admin', 'PATCH', `/groups/${a}`, { parent_id: b })).statusCode).toBe(200);
    const moved = await call('admin', 'GET', `/groups/${child}`);
    expect(moved.headers.etag).not.toBe(before);
    expect(moved.json().data.ancestors).toEqual([root, b, a]);
    // A below B is done; B below A must now be refused, also when both are asked at once.
    const c = await group(root, 'C');
    const d = await group(root, 'D');
    const answers = await Promise.all([call('admin', 'PATCH', `/groups/${c}`, { parent_id: d }), call('admin', 'PATCH', `/groups/${d}`, { parent_id: c })]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 422]);
    const refused = answers.find((answer) => answer.statusCode === 422)!;
    expect(refused.json().errors).toEqual({ parent_id: ['The group cannot be moved below itself.'] });
  });

  it('takes the same membership asked for at once only once, and never adds to a group deleted meanwhile', async () => {
    // On PostgreSQL the requests below run on several connections at once; on SQLite they take turns.
    const troop = await group(root, 'Troop');
    const member = await t.addUser('demo', { username: 'member' });
    const same = await Promise.all(
      Array.from({ length: 8 }, () => call('admin', 'POST', '/memberships', { person_id: member.id, group_id: troop, role_type: 'member' })),
    );
    expect(same.map((answer) => answer.statusCode).sort()).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    const listed = await call('admin', 'GET', `/people/${member.id}/memberships`);
    expect(listed.json().data.memberships).toHaveLength(1);

    for (let round = 0; round < 5; round += 1) {
      const doomed = await group(root, `Doomed ${round}`);
      const answers = await Promise.all([
        call('admin', 'DELETE', `/groups/${doomed}`),
        call('admin', 'POST', '/groups', { parent_id: doomed, name: 'Child' }),
        call('admin', 'POST', '/memberships', { person_id: member.id, group_id: doomed, role_type: 'member' }),
        call('admin', 'POST', '/events', { group_id: doomed, name: 'Camp', starts_at: '2099-07-01T08:00:00Z', ends_at: '2099-07-08T08:00:00Z' }),
      ]);
      for (const answer of answers) expect(answer.statusCode, answer.body).toBeLessThan(500);
      const [deleted, child, membership, event] = answers as [typeof answers[0], typeof answers[0], typeof answers[0], typeof answers[0]];
      if (deleted.statusCode === 204) {
        // Whatever came after the delete found no group; nothing was added to it before.
        for (const added of [child, membership, event]) expect(added.statusCode).not.toBe(201);
        expect((await call('admin', 'GET', `/groups/${doomed}`)).statusCode).toBe(404);
      } else {
        expect(deleted.statusCode).toBe(422);
        expect([child, membership, event].some((added) => added.statusCode === 201)).toBe(true);
      }
    }
  });

  it('keeps a group with an upcoming event, and deletes its ended events with it', async () => {
    const troop = await group(root, 'Troop');
    const event = (starts_at: string, ends_at: string) => call('admin', 'POST', '/events', { group_id: troop, name: 'Camp', starts_at, ends_at });
    const ended = (await event('2020-07-01T08:00:00Z', '2020-07-08T08:00:00Z')).json().data.event.id;
    const upcoming = (await event('2099-07-01T08:00:00Z', '2099-07-08T08:00:00Z')).json().data.event.id;
    const refused = await call('admin', 'DELETE', `/groups/${troop}`);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors).toEqual({ group: ['The group still has upcoming events.'] });
    expect((await call('admin', 'DELETE', `/events/${upcoming}`)).statusCode).toBe(204);
    expect((await call('admin', 'DELETE', `/groups/${troop}`)).statusCode).toBe(204);
    expect((await call('admin', 'GET', `/events/${ended}`)).json()).toEqual({ success: false, message: 'Event not found.' });
  });

  it('lists the guardians to whoever sees the child (parents are reachable through their children), and answers a new guardian with its ETag', async () => {
    const troop = await group(root, 'Troop');
    const leader = await t.addUser('demo', { username: 'leader' });
    await t.grant('demo', leader.id, troop, 'leader');
    tokens.leader = await t.login('demo', 'leader', PASSWORD);
    const child = (await call('leader', 'POST', '/people', { firstname: 'Mia', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id;
    // A parent in another group: the troop leader sees them through the child, not otherwise.
    const elsewhere = await group(root, 'Parents');
    const parent = (await call('admin', 'POST', '/people', { firstname: 'Pia', lastname: 'Kid', membership: { group_id: elsewhere, role_type: 'member' } })).json().data.person.id;
    const added = await call('admin', 'POST', `/people/${child}/guardians`, { guardian_id: parent });
    expect(added.statusCode).toBe(201);
    expect(added.headers.etag).toMatch(/^"\d+"$/);
    expect((await call('admin', 'GET', `/people/${child}/guardians`)).json().data.guardians.map((p: { id: number }) => p.id)).toEqual([parent]);
    expect((await call('leader', 'GET', `/people/${child}/guardians`)).json().data.guardians.map((p: { id: number }) => p.id)).toEqual([parent]);
    expect((await call('leader', 'GET', `/people/${parent}`)).statusCode).toBe(200);
    await call('admin', 'DELETE', `/people/${child}/guardians/${parent}`);
    expect((await call('leader', 'GET', `/people/${parent}`)).statusCode).toBe(404);
  });
});
