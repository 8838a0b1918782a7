import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, type World } from '../../helpers/events.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** GET /user/access: who the caller is and what they may do, in one request. */
describe('GET /user/access', () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
  }, 60_000);
  afterAll(() => w?.t.close());

  const accessOf = async (who: string) => {
    const answer = await w.call(who, 'GET', '/user/access');
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json();
  };

  it("answers a leader's names, tenant, role types, memberships with group names, permissions and token, in this order", async () => {
    const body = await accessOf('troopleader');
    expect(body.success).toBe(true);
    expect(Object.keys(body.data)).toEqual(['user', 'tenant', 'role_types', 'memberships', 'permissions', 'wards', 'token_id']);
    expect(body.data.user).toEqual({ id: w.ids.troopleader, firstname: 'Troopleader', lastname: 'Scout' });
    expect(body.data.tenant).toEqual({ slug: 'demo', name: 'demo', timezone: 'UTC', locale: 'en' });
    expect(body.data.role_types.map((r: { key: string }) => r.key)).toEqual(expect.arrayContaining(['admin', 'leader', 'assistant', 'member', 'observer']));
    expect(body.data.memberships).toEqual([
      { id: expect.any(Number), group_id: w.troopA, group_name: 'Troop A', role_type: 'leader', start_on: expect.stringMatching(DAY), end_on: null },
    ]);
    const leader = body.data.role_types.find((r: { key: string }) => r.key === 'leader');
    expect(body.data.permissions).toEqual([{ group_id: w.troopA, permission: leader.permission, scope: leader.scope }]);
    expect(body.data.wards).toEqual([]);
    const tokens = (await w.call('troopleader', 'GET', '/tokens')).json().data.tokens as { id: number; current: boolean }[];
    expect(body.data.token_id).toBe(tokens.find((token) => token.current)!.id);
  });

  it("lists a parent's wards, and nothing of the memberships that ended", async () => {
    const body = await accessOf('parent');
    expect(body.data.wards).toEqual([{ id: w.ids.child, firstname: 'Charlie', lastname: 'Child' }]);
    expect(body.data.memberships.map((m: { group_id: number }) => m.group_id)).toEqual([w.other]);
    // A membership that ended, and one that starts later: neither acts today.
    for (const dates of [{ start_on: '2020-01-01', end_on: '2020-12-31' }, { start_on: '2099-01-01' }]) {
      const added = await w.call('admin', 'POST', '/memberships', { person_id: w.ids.parent, group_id: w.troopB, role_type: 'leader', ...dates });
      expect(added.statusCode, added.body).toBe(201);
    }
    const again = await accessOf('parent');
    expect(again.data.memberships.map((m: { group_id: number }) => m.group_id)).toEqual([w.other]);
    expect(again.data.permissions.map((p: { group_id: number }) => p.group_id)).toEqual([w.other]);
  });

  it('gives the strongest permission per group, subtree over group at equal permission', async () => {
    // A second membership of the troop leader in troop A: a read role of scope subtree (weaker),
    // then a write role of scope subtree (as strong as leader, and reaching further).
    expect((await w.call('admin', 'POST', '/role-types', { key: 'reader', label: 'Reader', permission: 'read', scope: 'subtree' })).statusCode).toBe(201);
    expect((await w.call('admin', 'POST', '/role-types', { key: 'helper', label: 'Helper', permission: 'write', scope: 'subtree' })).statusCode).toBe(201);
    const leader = (await accessOf('admin')).data.role_types.find((r: { key: string }) => r.key === 'leader');
    for (const role_type of ['reader', 'helper']) {
      const added = await w.call('admin', 'POST', '/memberships', { person_id: w.ids.troopleader, group_id: w.troopA, role_type });
      expect(added.statusCode, added.body).toBe(201);
    }
    const body = await accessOf('troopleader');
    expect(body.data.memberships).toHaveLength(3);
    const expected = leader.permission === 'write' ? { permission: 'write', scope: 'subtree' } : { permission: leader.permission, scope: leader.scope };
    expect(body.data.permissions).toEqual([{ group_id: w.troopA, ...expected }]);
  });

  it('needs a valid token but no ability, and refuses unknown query parameters', async () => {
    const anonymous = await w.t.app.inject({ method: 'GET', url: '/api/user/access', headers: { host: 'demo.localhost', accept: 'application/json' } });
    expect(anonymous.statusCode).toBe(401);
    const narrow = await w.tokenWith('member', ['user:read']);
    expect((await w.callWith(narrow, 'GET', '/user/access')).statusCode).toBe(200);
    expect((await w.call('member', 'GET', '/user/access?foo=1')).statusCode).toBe(422);
  });
});
