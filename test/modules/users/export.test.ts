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
    expect(Object.keys(data)).toEqual(['person', 'memberships', 'guardians', 'wards', 'participations', 'tokens', 'history']);
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
