import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostOf, PASSWORD } from '../../helpers/app.js';
import { buildImportWorld, type ImportWorld } from '../people-import/helpers.js';

describe('GET /user/export (everything kept about the caller)', () => {
  let w: ImportWorld;
  beforeEach(async () => {
    w = await buildImportWorld();
  });
  afterEach(() => w.t.close());

  const exportOf = (token: string) =>
    w.t.app.inject({ method: 'GET', url: '/api/user/export', headers: { accept: 'application/json', host: hostOf('demo'), authorization: `Bearer ${token}` } });

  it("answers the caller's own person, memberships with group names, guardians, wards and tokens without secrets", async () => {
    const kid = (await w.call('admin', 'POST', '/people', { firstname: 'Mia', lastname: 'Kid', membership: { group_id: w.troop, role_type: 'member' } })).json().data.person;
    expect((await w.call('admin', 'POST', `/people/${kid.id}/guardians`, { guardian_id: w.ids.leader })).statusCode).toBe(201);
    const camp = (await w.call('admin', 'POST', '/events', { group_id: w.troop, name: 'Summer camp', starts_at: '2031-07-01T08:00:00Z', ends_at: '2031-07-08T08:00:00Z' })).json().data.event;
    expect((await w.call('leader', 'POST', `/events/${camp.id}/participations`, { person_id: w.ids.leader, notes: 'vegan' })).statusCode).toBe(201);
    const answer = await exportOf(w.tokens.leader);
    expect(answer.statusCode).toBe(200);
    const data = answer.json().data.export;
    expect(data.participations).toEqual([expect.objectContaining({ event_id: camp.id, person_id: w.ids.leader, state: 'accepted', notes: 'vegan', event_name: 'Summer camp' })]);
    expect(Object.keys(data)).toEqual(['person', 'memberships', 'guardians', 'wards', 'participations', 'tokens', 'history', 'messages']);
    expect(data.person).toMatchObject({ id: w.ids.leader, username: 'leader', has_login: true });
    expect(data.memberships).toEqual([expect.objectContaining({ group_id: w.troop, role_type: 'leader', group_name: 'Troop' })]);
    expect(data.wards).toEqual([{ id: kid.id, firstname: 'Mia', lastname: 'Kid' }]);
    expect(data.guardians).toEqual([]);
    expect(data.tokens).toHaveLength(1);
    expect(data.tokens[0]).toMatchObject({ current: true });
    expect(answer.body).not.toContain(w.tokens.leader.split('|')[1]!);
    expect(answer.body).not.toMatch(/password|\$argon|\$2[aby]\$/);
  });

  it('needs user:read, and shows only the caller', async () => {
    const other = await w.t.login('demo', 'admin', PASSWORD);
    expect((await exportOf(other)).json().data.export.person.id).toBe(w.ids.admin);
    const limited = (await w.call('admin', 'POST', '/tokens', { name: 'x', abilities: ['people:read'] })).json().data.plainTextToken as string;
    const refused = await exportOf(limited);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ success: false, message: 'Invalid ability provided.' });
  });
});

describe('GET /people/{id}/export (a person\'s data, for an administrator)', () => {
  let w: ImportWorld;
  beforeEach(async () => {
    w = await buildImportWorld();
  });
  afterEach(() => w.t.close());

  const get = (token: string, url: string) =>
    w.t.app.inject({ method: 'GET', url: `/api${url}`, headers: { accept: 'application/json', host: hostOf('demo'), authorization: `Bearer ${token}` } });
  /** What no two reads of one person's data can share: which token asks, and when a token was last used. */
  const comparable = (data: { tokens: { current: boolean; last_used_at: string | null }[] }) => ({
    ...data,
    tokens: data.tokens.map((token) => ({ ...token, current: false, last_used_at: null })),
  });

  it("answers exactly what the person's own GET /user/export gives, no token marked current", async () => {
    const kid = (await w.call('admin', 'POST', '/people', { firstname: 'Mia', lastname: 'Kid', membership: { group_id: w.troop, role_type: 'member' } })).json().data.person;
    expect((await w.call('admin', 'POST', `/people/${kid.id}/guardians`, { guardian_id: w.ids.leader })).statusCode).toBe(201);
    const camp = (await w.call('admin', 'POST', '/events', { group_id: w.troop, name: 'Summer camp', starts_at: '2031-07-01T08:00:00Z', ends_at: '2031-07-08T08:00:00Z' })).json().data.event;
    expect((await w.call('leader', 'POST', `/events/${camp.id}/participations`, { person_id: w.ids.leader, notes: 'vegan' })).statusCode).toBe(201);
    expect((await w.call('admin', 'PATCH', `/people/${w.ids.leader}`, { city: 'Olten' })).statusCode).toBe(200);

    const own = await get(w.tokens.leader, '/user/export');
    const byAdmin = await get(w.tokens.admin, `/people/${w.ids.leader}/export`);
    expect(byAdmin.statusCode).toBe(200);
    const body = byAdmin.json();
    expect(Object.keys(body)).toEqual(['success', 'message', 'data']);
    expect(Object.keys(body.data)).toEqual(['export']);
    const data = body.data.export;
    expect(Object.keys(data)).toEqual(['person', 'memberships', 'guardians', 'wards', 'participations', 'tokens', 'history', 'messages']);
    expect(data.person).toMatchObject({ id: w.ids.leader, city: 'Olten' });
    expect(data.participations).toEqual([expect.objectContaining({ event_id: camp.id, notes: 'vegan', event_name: 'Summer camp' })]);
    expect(data.wards).toEqual([{ id: kid.id, firstname: 'Mia', lastname: 'Kid' }]);
    expect(data.history.length).toBeGreaterThan(0);
    expect(data.tokens.map((token: { current: boolean }) => token.current)).toEqual([false]);
    expect(own.json().data.export.tokens.map((token: { current: boolean }) => token.current)).toEqual([true]);
    expect(comparable(data)).toEqual(comparable(own.json().data.export));
    expect(byAdmin.body).not.toContain(w.tokens.leader.split('|')[1]!);
    expect(byAdmin.body).not.toMatch(/password|\$argon|\$2[aby]\$/);
    // The administrator's own data, too.
    expect((await get(w.tokens.admin, `/people/${w.ids.admin}/export`)).json().data.export.person.id).toBe(w.ids.admin);
  });

  it('is 404 for a person the caller does not see, 403 for one a non-administrator sees', async () => {
    const kid = (await w.call('admin', 'POST', '/people', { firstname: 'Mia', lastname: 'Kid', membership: { group_id: w.troop, role_type: 'member' } })).json().data.person;
    // The leader sees the kid of their troop, not the administrator on the root.
    expect((await get(w.tokens.leader, `/people/${kid.id}`)).statusCode).toBe(200);
    const seen = await get(w.tokens.leader, `/people/${kid.id}/export`);
    expect(seen.statusCode).toBe(403);
    expect(seen.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    for (const id of [String(w.ids.admin), '999999', 'abc', '0']) {
      const unseen = await get(w.tokens.leader, `/people/${id}/export`);
      expect(unseen.statusCode, id).toBe(404);
      expect(unseen.json(), id).toEqual({ success: false, message: 'Person not found.' });
    }
    expect((await get(w.tokens.admin, '/people/999999/export')).json()).toEqual({ success: false, message: 'Person not found.' });
  });

  it('needs people:read', async () => {
    const limited = (await w.call('admin', 'POST', '/tokens', { name: 'x', abilities: ['user:read'] })).json().data.plainTextToken as string;
    const refused = await get(limited, `/people/${w.ids.leader}/export`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ success: false, message: 'Invalid ability provided.' });
    const reader = (await w.call('admin', 'POST', '/tokens', { name: 'y', abilities: ['people:read'] })).json().data.plainTextToken as string;
    expect((await get(reader, `/people/${w.ids.leader}/export`)).statusCode).toBe(200);
  });
});

describe('unknown query parameters on the import and export routes', () => {
  let w: ImportWorld;
  beforeEach(async () => {
    w = await buildImportWorld();
  });
  afterEach(() => w.t.close());

  const get = (url: string) =>
    w.t.app.inject({ method: 'GET', url: `/api${url}`, headers: { accept: 'application/json', host: hostOf('demo'), authorization: `Bearer ${w.tokens.admin}` } });

  it('refuses them with 422 on GET /user/export and GET /people/{id}/export', async () => {
    const own = await get('/user/export?format=csv');
    expect(own.statusCode).toBe(422);
    expect(own.json()).toEqual({ success: false, message: 'The format field is prohibited.', errors: { format: ['The format field is prohibited.'] } });
    const other = await get(`/people/${w.ids.leader}/export?include=all&x=1`);
    expect(other.statusCode).toBe(422);
    expect(other.json().errors).toEqual({ include: ['The include field is prohibited.'], x: ['The x field is prohibited.'] });
  });

  it('refuses a misspelt dry_run on POST /people/import, importing nothing', async () => {
    const before = await w.countPeople();
    const typo = await w.importCsv('admin', `group_id=${w.troop}&role_type=member&dryrun=true`, 'firstname,lastname\r\nMia,Kid\r\n');
    expect(typo.statusCode).toBe(422);
    expect(typo.json().errors).toEqual({ dryrun: ['The dryrun field is prohibited.'] });
    expect(await w.countPeople()).toBe(before);
  });
});
