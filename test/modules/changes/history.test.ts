import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';
import { daysFromNow } from '../../helpers/events.js';
import { deactivateUser, activateUser } from '../../../src/modules/auth/accounts.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A resource's history, and the person's own in their export (docs/api/sync.md). */
describe('history of people, groups and events', () => {
  let t: TestApp;
  let root: number;
  let troop: number;
  let adminId: number;
  const tokens: Record<string, string> = {};
  const call = (who: string, method: Method, url: string, payload?: object) =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens[who]}` }, ...(payload ? { payload } : {}) });

  beforeEach(async () => {
    t = await buildTestApp();
    root = await t.rootGroupId('demo');
    const admin = await t.addUser('demo', { username: 'admin', firstname: 'Ada', lastname: 'Admin' });
    adminId = admin.id;
    await t.grant('demo', admin.id, root, 'admin');
    tokens.admin = await t.login('demo', 'admin', PASSWORD);
    troop = (await call('admin', 'POST', '/groups', { parent_id: root, name: 'Troop' })).json().data.group.id;
  });
  afterEach(() => t.close());

  it('records an account deactivated and activated again as updates that never show the active flag', async () => {
    const kid = (await call('admin', 'POST', '/people', { firstname: 'Kim', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id;
    const db = t.storage.tenantDb('demo');
    await deactivateUser(db, kid);
    await activateUser(db, kid);
    const answer = await call('admin', 'GET', `/people/${kid}/history`);
    const records = answer.json().data.changes as { action: string; changes: object }[];
    expect(records.slice(0, 2).map((record) => [record.action, record.changes])).toEqual([['updated', {}], ['updated', {}]]);
    expect(answer.body).not.toContain('is_active');
  });

  it("shows a person's records with those of their memberships and participations, newest first, paged", async () => {
    const kid = (await call('admin', 'POST', '/people', { firstname: 'Kim', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id;
    await call('admin', 'PATCH', `/people/${kid}`, { city: 'Bern' });
    const event = (await call('admin', 'POST', '/events', { group_id: troop, name: 'Camp', starts_at: daysFromNow(5), ends_at: daysFromNow(6) })).json().data.event.id;
    const place = (await call('admin', 'POST', `/events/${event}/participations`, { person_id: kid })).json().data.participation.id;

    const answer = await call('admin', 'GET', `/people/${kid}/history`);
    expect(answer.statusCode).toBe(200);
    const { changes, next_cursor } = answer.json().data;
    expect(next_cursor).toBeNull();
    expect(changes.map((c: { entity: string; action: string }) => `${c.entity}:${c.action}`)).toEqual([
      'participation:created',
      'person:updated',
      'membership:created',
      'person:created',
    ]);
    expect(changes[0]).toMatchObject({ entity_id: place, actor: { id: adminId, firstname: 'Ada', lastname: 'Admin' }, changes: {} });
    expect(Object.keys(changes[1])).toEqual(['seq', 'entity', 'entity_id', 'action', 'at', 'actor', 'changes']);
    expect(changes[1].changes).toEqual({ city: [null, 'Bern'] });

    const first = (await call('admin', 'GET', `/people/${kid}/history?limit=3`)).json().data;
    expect(first.changes).toHaveLength(3);
    const rest = (await call('admin', 'GET', `/people/${kid}/history?limit=3&cursor=${encodeURIComponent(first.next_cursor)}`)).json().data;
    expect(rest).toEqual({ changes: [changes[3]], next_cursor: null });
    expect((await call('admin', 'GET', `/groups/${troop}/history?cursor=${encodeURIComponent(first.next_cursor)}`)).statusCode).toBe(422);
  });

  it("shows a group's and an event's own records, with actor null for the command line", async () => {
    await call('admin', 'PATCH', `/groups/${troop}`, { description: 'Saturdays' });
    const groupHistory = (await call('admin', 'GET', `/groups/${troop}/history`)).json().data.changes;
    expect(groupHistory.map((c: { action: string }) => c.action)).toEqual(['updated', 'created']);
    expect(groupHistory[0].changes).toEqual({ description: [null, 'Saturdays'] });
    const event = (await call('admin', 'POST', '/events', { group_id: troop, name: 'Camp', starts_at: daysFromNow(5), ends_at: daysFromNow(6) })).json().data.event.id;
    await call('admin', 'PATCH', `/events/${event}`, { capacity: 12 });
    const eventHistory = (await call('admin', 'GET', `/events/${event}/history`)).json().data.changes;
    expect(eventHistory.map((c: { action: string }) => c.action)).toEqual(['updated', 'created']);
    expect(eventHistory[0].changes).toEqual({ capacity: [null, 12] });
    // The admin was made as the command line makes users: no actor.
    const adminHistory = (await call('admin', 'GET', `/people/${adminId}/history`)).json().data.changes;
    expect(adminHistory.find((c: { entity: string; action: string }) => c.entity === 'person' && c.action === 'created').actor).toBeNull();
  });

  it('is for those who may change the resource: 404 unseen, 403 without the right', async () => {
    const patrol = (await call('admin', 'POST', '/groups', { parent_id: troop, name: 'Patrol' })).json().data.group.id;
    const other = (await call('admin', 'POST', '/groups', { parent_id: root, name: 'Other' })).json().data.group.id;
    const make = async (username: string, group: number, role: string) => {
      const person = await t.addUser('demo', { username, email: `${username}@example.com` });
      await t.grant('demo', person.id, group, role);
      tokens[username] = await t.login('demo', username, PASSWORD);
      return person.id;
    };
    const leader = await make('leader', troop, 'leader');
    const assistant = await make('assistant', troop, 'assistant');
    const stranger = await make('stranger', other, 'leader');
    const kid = (await call('admin', 'POST', '/people', { firstname: 'Kim', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id;
    const event = (await call('admin', 'POST', '/events', { group_id: troop, name: 'Camp', starts_at: daysFromNow(5), ends_at: daysFromNow(6) })).json().data.event.id;
    const UNAUTHORIZED = { success: false, message: 'This action is unauthorized.' };

    expect((await call('leader', 'GET', `/people/${kid}/history`)).statusCode).toBe(200);
    expect((await call('leader', 'GET', `/groups/${patrol}/history`)).statusCode).toBe(200);
    expect((await call('leader', 'GET', `/events/${event}/history`)).statusCode).toBe(200);
    // The assistant sees them all (read), but may change none.
    expect((await call('assistant', 'GET', `/people/${kid}/history`)).json()).toEqual(UNAUTHORIZED);
    expect((await call('assistant', 'GET', `/groups/${troop}/history`)).json()).toEqual(UNAUTHORIZED);
    expect((await call('assistant', 'GET', `/events/${event}/history`)).json()).toEqual(UNAUTHORIZED);
    // A person reads their own history through their export, not here.
    expect((await call('assistant', 'GET', `/people/${assistant}/history`)).json()).toEqual(UNAUTHORIZED);
    // Another troop's leader does not see the kid or the event; groups are seen by all.
    expect((await call('stranger', 'GET', `/people/${kid}/history`)).json()).toEqual({ success: false, message: 'Person not found.' });
    expect((await call('stranger', 'GET', `/events/${event}/history`)).json()).toEqual({ success: false, message: 'Event not found.' });
    expect((await call('stranger', 'GET', `/groups/${troop}/history`)).json()).toEqual(UNAUTHORIZED);
    expect((await call('stranger', 'GET', `/people/${stranger}/history`)).statusCode).toBe(200);
    expect((await call('admin', 'GET', `/people/${leader}/history?foo=1`)).json().errors).toEqual({ foo: ['The foo field is prohibited.'] });
    expect((await call('admin', 'GET', '/people/999999/history')).statusCode).toBe(404);
  });

  it("shows a leader a person's participations only in the events the leader sees", async () => {
    const other = (await call('admin', 'POST', '/groups', { parent_id: root, name: 'Other' })).json().data.group.id;
    const kid = (await call('admin', 'POST', '/people', { firstname: 'Kim', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id;
    await call('admin', 'POST', '/memberships', { person_id: kid, group_id: other, role_type: 'member' });
    const hidden = (await call('admin', 'POST', '/events', { group_id: other, name: 'Other camp', starts_at: daysFromNow(5), ends_at: daysFromNow(6) })).json().data.event.id;
    const seen = (await call('admin', 'POST', '/events', { group_id: troop, name: 'Troop camp', starts_at: daysFromNow(5), ends_at: daysFromNow(6) })).json().data.event.id;
    const hiddenPlace = (await call('admin', 'POST', `/events/${hidden}/participations`, { person_id: kid })).json().data.participation.id;
    const seenPlace = (await call('admin', 'POST', `/events/${seen}/participations`, { person_id: kid })).json().data.participation.id;
    const leader = await t.addUser('demo', { username: 'leader', email: 'leader@example.com' });
    await t.grant('demo', leader.id, troop, 'leader');
    tokens.leader = await t.login('demo', 'leader', PASSWORD);
    const ids = (who: string) => async () =>
      ((await call(who, 'GET', `/people/${kid}/history`)).json().data.changes as { entity: string; entity_id: number }[])
        .filter((c) => c.entity === 'participation')
        .map((c) => c.entity_id)
        .sort();
    expect(await ids('leader')()).toEqual([seenPlace]);
    expect(await ids('admin')()).toEqual([hiddenPlace, seenPlace].sort());
  });

  it("keeps a deleted event's participation records in the person's history for an admin on the root", async () => {
    const kid = (await call('admin', 'POST', '/people', { firstname: 'Kim', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id;
    const event = (await call('admin', 'POST', '/events', { group_id: troop, name: 'Gone', starts_at: daysFromNow(5), ends_at: daysFromNow(6) })).json().data.event.id;
    const place = (await call('admin', 'POST', `/events/${event}/participations`, { person_id: kid })).json().data.participation.id;
    expect((await call('admin', 'PATCH', `/participations/${place}`, { state: 'cancelled' })).statusCode).toBe(200);
    expect((await call('admin', 'DELETE', `/events/${event}`)).statusCode).toBe(204);
    const records = ((await call('admin', 'GET', `/people/${kid}/history`)).json().data.changes as { entity: string; entity_id: number; action: string }[])
      .filter((c) => c.entity === 'participation')
      .map((c) => `${c.entity_id}:${c.action}`);
    expect(records).toEqual([`${place}:deleted`, `${place}:updated`, `${place}:created`]);
  });

  it('lets an admin on the root read every history, also with a role type that reaches the root group only', async () => {
    const patrol = (await call('admin', 'POST', '/groups', { parent_id: troop, name: 'Patrol' })).json().data.group.id;
    expect((await call('admin', 'POST', '/role-types', { key: 'rootadmin', label: 'Root admin', permission: 'admin', scope: 'group' })).statusCode).toBe(201);
    const keeper = await t.addUser('demo', { username: 'keeper', email: 'keeper@example.com' });
    await t.grant('demo', keeper.id, root, 'rootadmin');
    tokens.keeper = await t.login('demo', 'keeper', PASSWORD);
    const event = (await call('admin', 'POST', '/events', { group_id: root, name: 'Everyone', starts_at: daysFromNow(5), ends_at: daysFromNow(6) })).json().data.event.id;
    // Not a writer on the patrol (the role reaches the root group only), but admin on the root.
    for (const url of [`/groups/${patrol}/history`, `/groups/${troop}/history`, `/events/${event}/history`, `/people/${adminId}/history`]) {
      const answer = await call('keeper', 'GET', url);
      expect(answer.statusCode, `${url} ${answer.body}`).toBe(200);
    }
  });

  it("joins the person's own export", async () => {
    const me = await t.addUser('demo', { username: 'me', email: 'me@example.com' });
    await t.grant('demo', me.id, troop, 'member');
    tokens.me = await t.login('demo', 'me', PASSWORD);
    await call('me', 'PATCH', '/user', { city: 'Thun' });
    const exported = (await call('me', 'GET', '/user/export')).json().data.export;
    expect(Object.keys(exported).slice(-2)).toEqual(['history', 'messages']);
    expect(exported.history[0]).toMatchObject({ entity: 'person', entity_id: me.id, action: 'updated', actor: { id: me.id }, changes: { city: [null, 'Thun'] } });
  });
});
