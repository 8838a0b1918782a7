import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

/** A tenant with a region, two troops below it, an admin, a region leader and a troop leader. */
describe('people and memberships', () => {
  let t: TestApp;
  let root: number;
  let region: number;
  let troopA: number;
  let troopB: number;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const call = (who: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({
      method,
      url: `/api${url}`,
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens[who]}` },
      ...(payload ? { payload } : {}),
    });

  beforeEach(async () => {
    t = await buildTestApp();
    root = await t.rootGroupId('demo');
    for (const name of ['admin', 'regionleader', 'troopleader']) {
      ids[name] = (await t.addUser('demo', { username: name, lastname: name })).id;
    }
    await t.grant('demo', ids.admin!, root, 'admin');
    tokens.admin = await t.login('demo', 'admin', PASSWORD);
    const group = async (parent_id: number, name: string) => (await call('admin', 'POST', '/groups', { parent_id, name })).json().data.group.id as number;
    region = await group(root, 'Region');
    troopA = await group(region, 'Troop A');
    troopB = await group(region, 'Troop B');
    await t.grant('demo', ids.regionleader!, region, 'leader');
    await t.grant('demo', ids.troopleader!, troopA, 'leader');
    tokens.regionleader = await t.login('demo', 'regionleader', PASSWORD);
    tokens.troopleader = await t.login('demo', 'troopleader', PASSWORD);
  });
  afterEach(() => t.close());

  const addChild = async (who: string, group_id: number, firstname: string) =>
    call(who, 'POST', '/people', { firstname, lastname: 'Kid', membership: { group_id, role_type: 'member' } });

  it('creates a person without a login in a group the caller leads, and shows them only to those who may see them', async () => {
    const created = await addChild('troopleader', troopA, 'Mia');
    expect(created.statusCode).toBe(201);
    const mia = created.json().data.person;
    expect(Object.keys(mia)).toEqual([
      'id', 'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile', 'street',
      'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'created_at', 'updated_at', 'birthday', 'has_login',
    ]);
    expect(mia).toMatchObject({ username: null, email: null, has_login: false });
    expect(created.headers.etag).toMatch(/^"\d+"$/);
    const other = (await addChild('admin', troopB, 'Noah')).json().data.person;
    expect((await call('regionleader', 'GET', `/people/${mia.id}`)).statusCode).toBe(200);
    expect((await call('troopleader', 'GET', `/people/${other.id}`)).json()).toEqual({ success: false, message: 'Person not found.' });
    const listed = await call('troopleader', 'GET', `/people?group_id=${region}&below=true`);
    expect(listed.json().data.people.map((p: { firstname: string }) => p.firstname)).toEqual(['Mia', 'Alice']);
    const all = await call('regionleader', 'GET', `/people?group_id=${region}&below=true&role_type=member`);
    expect(all.json().data.people.map((p: { firstname: string }) => p.firstname)).toEqual(['Mia', 'Noah']);
  });

  it('refuses to grant more than the caller holds, and a write without the permission', async () => {
    const refused = await call('troopleader', 'POST', '/people', { firstname: 'X', lastname: 'Y', membership: { group_id: troopA, role_type: 'admin' } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    expect((await addChild('troopleader', troopB, 'Z')).statusCode).toBe(403);
  });

  it('lets only the person and an admin on the root change the login fields of someone with a login', async () => {
    await t.grant('demo', ids.regionleader!, troopA, 'assistant');
    expect((await call('troopleader', 'PATCH', `/people/${ids.regionleader}`, { email: 'mine@example.com' })).statusCode).toBe(403);
    // A leader over the troop leader may change the profile, no longer the address that is the key to the account.
    const refused = await call('regionleader', 'PATCH', `/people/${ids.troopleader}`, { email: 'new@example.com', birthday: '2001-02-03' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    expect((await call('regionleader', 'PATCH', `/people/${ids.troopleader}`, { username: 'taken-over' })).statusCode).toBe(403);
    const profile = await call('regionleader', 'PATCH', `/people/${ids.troopleader}`, { birthday: '2001-02-03' });
    expect(profile.statusCode).toBe(200);
    const allowed = await call('admin', 'PATCH', `/people/${ids.troopleader}`, { email: 'new@example.com' });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json().data.person).toMatchObject({ email: 'new@example.com', birthday: '2001-02-03' });
  });

  it('lets only an admin on the root set a password, which ends the person\'s sessions', async () => {
    expect((await call('regionleader', 'PATCH', `/people/${ids.troopleader}`, { password: 'a brand new password' })).statusCode).toBe(403);
    expect((await call('admin', 'PATCH', `/people/${ids.troopleader}`, { password: 'a brand new password' })).statusCode).toBe(200);
    expect((await call('troopleader', 'GET', '/groups')).statusCode).toBe(401);
    expect(await t.login('demo', 'troopleader', 'a brand new password')).toBeTruthy();
  });

  it('never removes the last administrator, by membership or by erasure', async () => {
    const memberships = (await call('admin', 'GET', `/groups/${root}/memberships`)).json().data.memberships;
    expect(memberships).toHaveLength(1);
    const ending = await call('admin', 'PATCH', `/memberships/${memberships[0].id}`, { end_on: '2001-01-01' });
    expect(ending.statusCode).toBe(422);
    expect(ending.json().message).toBe('The last administrator cannot be removed.');
    expect((await call('admin', 'DELETE', `/people/${ids.admin}`)).json().message).toBe('The last administrator cannot be removed.');
    expect((await call('admin', 'DELETE', `/people/${ids.troopleader}`)).statusCode).toBe(204);
    expect((await call('admin', 'GET', `/people/${ids.troopleader}`)).statusCode).toBe(404);
  });

  it('leaves one administrator when the last two step down at the same moment', async () => {
    const second = (await t.addUser('demo', { username: 'second' })).id;
    await t.grant('demo', second, root, 'admin');
    tokens.second = await t.login('demo', 'second', PASSWORD);
    const adminships = (await call('admin', 'GET', `/groups/${root}/memberships`)).json().data.memberships as { id: number; person_id: number }[];
    expect(adminships).toHaveLength(2);
    const of = (person: number) => adminships.find((m) => m.person_id === person)!.id;
    // Each ends their own administration, in parallel (on PostgreSQL, on two connections).
    const answers = await Promise.all([
      call('admin', 'DELETE', `/memberships/${of(ids.admin!)}`),
      call('second', 'DELETE', `/memberships/${of(second)}`),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([204, 422]);
    expect((await t.storage.tenantDb('demo').selectFrom('memberships').select('id').where('group_id', '=', root).execute())).toHaveLength(1);
  });

  it('refuses overlapping roles, dates out of order and fixed fields', async () => {
    const overlap = await call('admin', 'POST', '/memberships', { person_id: ids.troopleader, group_id: troopA, role_type: 'leader', start_on: '2020-01-01' });
    expect(overlap.json()).toEqual({
      success: false,
      message: 'The person already has this role in this group.',
      errors: { role_type: ['The person already has this role in this group.'] },
    });
    const dates = await call('admin', 'POST', '/memberships', { person_id: ids.troopleader, group_id: troopB, role_type: 'member', start_on: '2020-01-02', end_on: '2020-01-01' });
    expect(dates.json().errors).toEqual({ end_on: ['The end on field must be a date after or equal to start on.'] });
    const created = (await call('admin', 'POST', '/memberships', { person_id: ids.troopleader, group_id: troopB, role_type: 'member' })).json().data.membership;
    const fixed = await call('admin', 'PATCH', `/memberships/${created.id}`, { role_type: 'leader' });
    expect(fixed.json().errors).toEqual({ role_type: ['The role type field is prohibited.'] });
  });

  it('lets guardians see and change their ward\'s profile but not the username, and lists wards', async () => {
    const mia = (await addChild('troopleader', troopA, 'Mia')).json().data.person;
    const parent = await t.addUser('demo', { username: 'parent' });
    tokens.parent = await t.login('demo', 'parent', PASSWORD);
    expect((await call('parent', 'GET', `/people/${mia.id}`)).statusCode).toBe(404);
    // The troop leader sees the parent only once the parent is somewhere they read: the admin links them.
    const linked = await call('admin', 'POST', `/people/${mia.id}/guardians`, { guardian_id: parent.id });
    expect(linked.statusCode).toBe(201);
    expect((await call('parent', 'GET', '/user/wards')).json().data.wards.map((w: { id: number }) => w.id)).toEqual([mia.id]);
    expect((await call('parent', 'PATCH', `/people/${mia.id}`, { can_swimm: true })).statusCode).toBe(200);
    expect((await call('parent', 'PATCH', `/people/${mia.id}`, { username: 'mia' })).statusCode).toBe(403);
    expect((await call('parent', 'POST', `/people/${mia.id}/guardians`, { guardian_id: ids.admin })).statusCode).toBe(403);
    expect((await call('admin', 'POST', `/people/${mia.id}/guardians`, { guardian_id: parent.id })).json().message).toBe('The person is already a guardian.');
    expect((await call('admin', 'DELETE', `/people/${mia.id}/guardians/${ids.admin}`)).json().message).toBe('Guardian not found.');
  });
});
