import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../helpers/app.js';

/**
 * A body may carry fields its schema does not list (they are let through, as Laravel does); none
 * of them may reach a column: not a version, a path, a key, an active flag or a sort key.
 */
describe('fields a body does not declare', () => {
  let t: TestApp;
  let token: string;
  let root: number;
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

  beforeEach(async () => {
    t = await buildTestApp();
    root = await t.rootGroupId('demo');
    const admin = await t.addUser('demo', { username: 'admin' });
    await t.grant('demo', admin.id, root, 'admin');
    token = await t.login('demo', 'admin', PASSWORD);
  });
  afterEach(() => t.close());

  it('are ignored by every PATCH of the group core', async () => {
    const troop = (await call('POST', '/groups', { parent_id: root, name: 'Troop' })).json().data.group;
    const group = await call('PATCH', `/groups/${troop.id}`, { name: 'Troop 7', path: '/999/', version: 77, id: 5, unknown_column: 1 });
    expect(group.statusCode).toBe(200);
    expect(group.json().data.group).toMatchObject({ id: troop.id, name: 'Troop 7' });
    expect(group.headers.etag).toBe('"2"');
    const stored = await t.storage.tenantDb('demo').selectFrom('groups').select('path').where('id', '=', troop.id).executeTakeFirstOrThrow();
    expect(stored.path).toBe(`/${root}/${troop.id}/`);

    const role = await call('PATCH', '/role-types/member', { label: 'Scout', key: '\u0000', version: 9 });
    expect(role.statusCode).toBe(200);
    expect(role.json().data.role_type).toMatchObject({ key: 'member', label: 'Scout' });

    const kid = (await call('POST', '/people', { firstname: 'Mia', lastname: 'Kid', membership: { group_id: troop.id, role_type: 'member' } })).json().data.person;
    // (id, is_active, created_at and updated_at are refused with 422, as PATCH /user refuses them.)
    const person = await call('PATCH', `/people/${kid.id}`, { city: 'Bern', lastname_key: 'zzz', version: 50, password_hash: 'x' });
    expect(person.statusCode).toBe(200);
    expect(person.json().data.person).toMatchObject({ city: 'Bern', created_at: kid.created_at });
    const row = await t.storage.tenantDb('demo').selectFrom('users').select(['is_active', 'lastname_key', 'version']).where('id', '=', kid.id).executeTakeFirstOrThrow();
    expect([Boolean(row.is_active), row.lastname_key, Number(row.version)]).toEqual([true, 'kid', 2]);

    const membership = (await call('GET', `/people/${kid.id}/memberships`)).json().data.memberships[0];
    const changed = await call('PATCH', `/memberships/${membership.id}`, { label: 'Cub', version: 40, created_at: '2000-01-01' });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().data.membership).toMatchObject({ label: 'Cub', created_at: membership.created_at });
    expect(changed.headers.etag).toBe('"2"');
  });

  it('a query string integer is decimal digits: 1.5, 1e3, 0x10 and an empty value are refused, not read as another number', async () => {
    for (const after of ['1.5', '1e3', '0x10', '', ' ']) {
      const answer = await call('GET', `/changes?after=${encodeURIComponent(after)}`);
      expect(answer.statusCode, after).toBe(422);
      expect(answer.json().errors, after).toEqual({ after: ['The after field must be an integer.'] });
    }
    const limit = await call('GET', '/groups?limit=1.5');
    expect(limit.json().errors).toEqual({ limit: ['The limit field must be an integer.'] });
    expect((await call('GET', '/groups?limit=%2B2')).statusCode).toBe(200);
    expect((await call('GET', '/changes?after=0')).statusCode).toBe(200);
  });
});
