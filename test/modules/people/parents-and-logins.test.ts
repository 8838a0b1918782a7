import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Parents reached through their children, a parent created or linked in one step, the login-field
 * rule, and a person's page in one request (`include`).
 * The tenant: root ── troopA, root ── troopB; `admin` (admin on the root), `leader` (leader on
 * troopA), `helper` (assistant on troopA: read only); Kim, a child in troopA.
 */
describe('people: parents, logins and a person with what goes with them', () => {
  let t: TestApp;
  let root: number;
  let troopA: number;
  let troopB: number;
  let kim: number;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const call = (who: string, method: Method, url: string, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({
      method,
      url: `/api${url}`,
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens[who]}`, ...headers },
      ...(payload ? { payload } : {}),
    });
  const created = (answer: LightMyRequestResponse) => {
    expect(answer.statusCode, answer.body).toBe(201);
    return answer.json().data;
  };
  const errorsOf = (answer: LightMyRequestResponse) => {
    expect(answer.statusCode, answer.body).toBe(422);
    return answer.json().errors as Record<string, string[]>;
  };
  const user = async (username: string, group: number | null, role = 'member', fields: Record<string, unknown> = {}) => {
    ids[username] = (await t.addUser('demo', { username, firstname: username, lastname: 'Test', ...fields })).id;
    if (group !== null) await t.grant('demo', ids[username]!, group, role);
    tokens[username] = await t.login('demo', username, PASSWORD);
    return ids[username]!;
  };
  const names = (people: { firstname: string }[]) => people.map((p) => p.firstname).sort();

  beforeEach(async () => {
    t = await buildTestApp();
    root = await t.rootGroupId('demo');
    await user('admin', root, 'admin');
    const group = async (name: string) => created(await call('admin', 'POST', '/groups', { parent_id: root, name })).group.id as number;
    troopA = await group('Troop A');
    troopB = await group('Troop B');
    await user('leader', troopA, 'leader');
    await user('helper', troopA, 'assistant');
    kim = created(await call('admin', 'POST', '/people', { firstname: 'Kim', lastname: 'Kid', membership: { group_id: troopA, role_type: 'member' } })).person.id;
  });
  afterEach(() => t.close());

  describe('a parent in one step', () => {
    it('creates a parent without a membership, linked as guardian, whom the child\'s leaders then see and change', async () => {
      const answer = await call('leader', 'POST', '/people', { firstname: 'Pia', lastname: 'Parent', phonenumber_mobile: '079 555 11 22', guardian_of: kim });
      const pia = created(answer).person;
      expect(pia).toMatchObject({ firstname: 'Pia', has_login: false });
      expect(answer.headers.etag).toMatch(/^"\d+"$/);
      expect(names((await call('leader', 'GET', `/people/${kim}/guardians`)).json().data.guardians)).toEqual(['Pia']);
      expect((await call('leader', 'GET', `/people/${pia.id}/memberships`)).json().data.memberships).toEqual([]);
      // Reached through Kim: in the leader's list, export and search, and changeable (no membership of her own).
      expect(names((await call('leader', 'GET', '/people')).json().data.people)).toContain('Pia');
      expect((await call('leader', 'GET', '/people', undefined, { accept: 'text/csv' })).body).toContain('Pia');
      expect(names((await call('helper', 'GET', '/people?q=parent')).json().data.people)).toEqual(['Pia']);
      const changed = await call('leader', 'PATCH', `/people/${pia.id}`, { city: 'Bern', email: 'pia@example.com' });
      expect(changed.statusCode, changed.body).toBe(200);
      // Read only is not enough to change her; a leader of another troop does not see her at all.
      expect((await call('helper', 'PATCH', `/people/${pia.id}`, { city: 'Thun' })).statusCode).toBe(403);
      await user('other', troopB, 'leader');
      expect((await call('other', 'GET', `/people/${pia.id}`)).json()).toEqual({ success: false, message: 'Person not found.' });
      expect(names((await call('other', 'GET', '/people')).json().data.people)).not.toContain('Pia');
      // The child sees their parent too.
      await call('admin', 'PATCH', `/people/${kim}`, { username: 'kim', password: PASSWORD, email: 'kim@example.com' });
      tokens.kim = await t.login('demo', 'kim', PASSWORD);
      expect((await call('kim', 'GET', `/people/${pia.id}`)).statusCode).toBe(200);
    });

    it('takes exactly one of membership and guardian_of', async () => {
      expect(errorsOf(await call('leader', 'POST', '/people', { firstname: 'A', lastname: 'B' }))).toEqual({
        membership: ['The membership field is required when guardian of is not present.'],
      });
      const both = await call('leader', 'POST', '/people', { firstname: 'A', lastname: 'B', guardian_of: kim, membership: { group_id: troopA, role_type: 'member' } });
      expect(errorsOf(both)).toEqual({ guardian_of: ['The guardian of field prohibits membership from being present.'] });
      // Other fields' errors come in the same answer.
      expect(Object.keys(errorsOf(await call('leader', 'POST', '/people', { lastname: 'B' }))).sort()).toEqual(['firstname', 'membership']);
    });

    it('needs the right to add a guardian to that person: 404 unseen, 403 without write', async () => {
      const noah = created(await call('admin', 'POST', '/people', { firstname: 'Noah', lastname: 'Kid', membership: { group_id: troopB, role_type: 'member' } })).person.id;
      const unseen = await call('leader', 'POST', '/people', { firstname: 'A', lastname: 'B', guardian_of: noah });
      expect(unseen.statusCode).toBe(404);
      expect(unseen.json().message).toBe('Person not found.');
      const readOnly = await call('helper', 'POST', '/people', { firstname: 'A', lastname: 'B', guardian_of: kim });
      expect(readOnly.statusCode).toBe(403);
      expect((await call('admin', 'GET', '/people?q=B')).json().data.people.filter((p: { firstname: string }) => p.firstname === 'A')).toEqual([]);
    });
  });

  describe('a guardian linked by e-mail', () => {
    it('links the person with that address, whatever its case, when they have no membership that has not ended', async () => {
      const paul = created(await call('admin', 'POST', '/people', { firstname: 'Paul', lastname: 'Parent', email: 'Paul@Example.com', guardian_of: kim })).person.id;
      const mia = created(await call('leader', 'POST', '/people', { firstname: 'Mia', lastname: 'Kid', membership: { group_id: troopA, role_type: 'member' } })).person.id;
      // The leader sees Paul already (through Kim); a fresh link for Mia by his address.
      const linked = created(await call('leader', 'POST', `/people/${mia}/guardians`, { email: 'paul@EXAMPLE.com' }));
      expect(linked.guardian).toMatchObject({ id: paul, firstname: 'Paul' });
      expect(errorsOf(await call('leader', 'POST', `/people/${mia}/guardians`, { email: 'paul@example.com' }))).toEqual({ email: ['The person is already a guardian.'] });
    });

    it('links a parent the caller does not see yet when they belong nowhere, and never someone hidden with a membership', async () => {
      const lone = await t.addUser('demo', { username: 'lone', firstname: 'Lone', lastname: 'Parent', email: 'lone@example.com' });
      const hidden = await t.addUser('demo', { username: 'hidden', firstname: 'Hid', lastname: 'Den', email: 'hidden@example.com' });
      await t.grant('demo', hidden.id, troopB, 'member');
      expect((await call('leader', 'GET', `/people/${lone.id}`)).statusCode).toBe(404);
      expect(created(await call('leader', 'POST', `/people/${kim}/guardians`, { email: 'LONE@example.com' })).guardian.id).toBe(lone.id);
      expect((await call('leader', 'GET', `/people/${lone.id}`)).statusCode).toBe(200);
      for (const email of ['hidden@example.com', 'nobody@example.com']) {
        const answer = await call('leader', 'POST', `/people/${kim}/guardians`, { email });
        expect(answer.statusCode, email).toBe(404);
        expect(answer.json()).toEqual({ success: false, message: 'Person not found.' });
      }
      // A future membership has not ended either.
      const later = await t.addUser('demo', { username: 'later', firstname: 'Late', lastname: 'R', email: 'later@example.com' });
      await t.grant('demo', later.id, troopB, 'member', { startOn: '2999-01-01' });
      expect((await call('leader', 'POST', `/people/${kim}/guardians`, { email: 'later@example.com' })).statusCode).toBe(404);
    });

    it('takes exactly one of guardian_id and email, after the right to add one', async () => {
      expect(errorsOf(await call('leader', 'POST', `/people/${kim}/guardians`, { guardian_id: ids.helper, email: 'x@example.com' }))).toEqual({
        email: ['The email field prohibits guardian id from being present.'],
      });
      expect(errorsOf(await call('leader', 'POST', `/people/${kim}/guardians`, {}))).toEqual({
        guardian_id: ['The guardian id field is required when email is not present.'],
      });
      expect(Object.keys(errorsOf(await call('leader', 'POST', `/people/${kim}/guardians`, { email: 'not an address' })))).toEqual(['email']);
      expect((await call('helper', 'POST', `/people/${kim}/guardians`, { email: 'x@example.com' })).statusCode).toBe(403);
    });
  });

  describe('the login fields of someone else', () => {
    it('of a person with a login: only they and an admin on the root; a guardian changes neither', async () => {
      await user('parent', null);
      created(await call('admin', 'POST', `/people/${kim}/guardians`, { guardian_id: ids.parent }));
      await call('admin', 'PATCH', `/people/${kim}`, { username: 'kim', password: PASSWORD, email: 'kim@example.com' });
      for (const change of [{ email: 'new@example.com' }, { username: 'kimmy' }]) {
        const refused = await call('leader', 'PATCH', `/people/${kim}`, change);
        expect(refused.statusCode, JSON.stringify(change)).toBe(403);
        expect(refused.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
        expect((await call('parent', 'PATCH', `/people/${kim}`, change)).statusCode).toBe(403);
      }
      // The same address again is no change; the rest of the profile stays theirs to change.
      expect((await call('leader', 'PATCH', `/people/${kim}`, { email: 'kim@example.com', city: 'Biel' })).statusCode).toBe(200);
      expect((await call('parent', 'PATCH', `/people/${kim}`, { phonenumber: '031 111 22 33' })).statusCode).toBe(200);
      expect((await call('admin', 'PATCH', `/people/${kim}`, { email: 'kim.kid@example.com' })).statusCode).toBe(200);
      // The parent's own login, reached through Kim: the leader changes the profile, not the address.
      expect((await call('leader', 'PATCH', `/people/${ids.parent}`, { email: 'p@example.com' })).statusCode).toBe(403);
      expect((await call('leader', 'PATCH', `/people/${ids.parent}`, { city: 'Olten' })).statusCode).toBe(200);
    });

    it('of a person without a login: write on every group where they hold read or more, and on each ward', async () => {
      const sam = created(await call('admin', 'POST', '/people', { firstname: 'Sam', lastname: 'Helper', membership: { group_id: troopA, role_type: 'member' } })).person.id;
      expect((await call('leader', 'PATCH', `/people/${sam}`, { email: 'sam@example.com' })).statusCode).toBe(200);
      // An assistant's role in troopB, even one that starts later, needs write there too.
      await t.grant('demo', sam, troopB, 'assistant', { startOn: '2999-01-01' });
      expect((await call('leader', 'PATCH', `/people/${sam}`, { email: 'sam2@example.com' })).statusCode).toBe(403);
      expect((await call('admin', 'PATCH', `/people/${sam}`, { email: 'sam2@example.com' })).statusCode).toBe(200);
      // A parent without a login whose other child is in a troop the leader does not lead.
      const pia = created(await call('leader', 'POST', '/people', { firstname: 'Pia', lastname: 'Parent', guardian_of: kim })).person.id;
      expect((await call('leader', 'PATCH', `/people/${pia}`, { email: 'pia@example.com' })).statusCode).toBe(200);
      const noah = created(await call('admin', 'POST', '/people', { firstname: 'Noah', lastname: 'Kid', membership: { group_id: troopB, role_type: 'member' } })).person.id;
      created(await call('admin', 'POST', `/people/${noah}/guardians`, { guardian_id: pia }));
      expect((await call('leader', 'PATCH', `/people/${pia}`, { email: 'pia2@example.com' })).statusCode).toBe(403);
      expect((await call('leader', 'PATCH', `/people/${pia}`, { city: 'Aarau' })).statusCode).toBe(200);
    });
  });

  it('gives an administrator of the root group alone (group scope) who is the guardian no more than a guardian\'s right', async () => {
    created(await call('admin', 'POST', '/role-types', { key: 'rootonly', permission: 'admin', scope: 'group' }));
    await user('office', root, 'rootonly');
    created(await call('admin', 'POST', `/people/${kim}/guardians`, { guardian_id: ids.office }));
    expect((await call('office', 'PATCH', `/people/${kim}`, { email: 'kim@example.com' })).statusCode).toBe(403);
    expect((await call('office', 'GET', `/people/${kim}?include=can`)).json().data.can).toMatchObject({ update: true, change_login: false });
    expect((await call('office', 'PATCH', `/people/${kim}`, { city: 'Thun' })).statusCode).toBe(200);
  });

  it('lets whoever may change a person without a login fully give them a username, whatever their roles elsewhere', async () => {
    await t.grant('demo', kim, troopB, 'assistant', { startOn: '2999-01-01' });
    // The username is no key before there is a login: only its e-mail address needs the leader's write everywhere.
    const named = await call('leader', 'PATCH', `/people/${kim}`, { username: 'kimmy' });
    expect(named.statusCode, named.body).toBe(422);
    expect(named.json().errors).toHaveProperty('password');
    expect((await call('leader', 'PATCH', `/people/${kim}`, { email: 'kim@example.com' })).statusCode).toBe(403);
  });

  describe('GET /people/{id}?include=', () => {
    it('adds the asked lists after the person, in their fixed order', async () => {
      const pia = created(await call('leader', 'POST', '/people', { firstname: 'Pia', lastname: 'Parent', email: 'pia@example.com', guardian_of: kim })).person.id;
      const event = created(await call('leader', 'POST', '/events', { group_id: troopA, name: 'Camp', starts_at: '2999-07-01T08:00:00Z', ends_at: '2999-07-08T16:00:00Z' })).event;
      created(await call('leader', 'POST', `/events/${event.id}/participations`, { person_id: kim, notes: 'Nuts' }));
      const answer = await call('leader', 'GET', `/people/${kim}?include=can,participations,wards,guardians,memberships`);
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.headers.etag).toMatch(/^"\d+"$/);
      const data = answer.json().data;
      expect(Object.keys(data)).toEqual(['person', 'memberships', 'guardians', 'wards', 'participations', 'can']);
      expect(data.memberships).toHaveLength(1);
      expect(Object.keys(data.memberships[0])).toEqual(['id', 'person_id', 'group_id', 'role_type', 'label', 'start_on', 'end_on', 'group_name', 'created_at', 'updated_at']);
      expect(data.memberships[0]).toMatchObject({ group_id: troopA, group_name: 'Troop A', role_type: 'member' });
      expect(names(data.guardians)).toEqual(['Pia']);
      expect(data.wards).toEqual([]);
      expect(data.participations).toHaveLength(1);
      expect(data.participations[0]).toMatchObject({ event_id: event.id, state: 'accepted', notes: 'Nuts', event: { id: event.id, name: 'Camp', starts_at: event.starts_at, ends_at: event.ends_at } });
      expect(data.can).toEqual({ update: true, delete: false, change_login: true, set_password: false, invite: false, add_guardian: true });
      const parent = (await call('leader', 'GET', `/people/${pia}?include=wards,can`)).json().data;
      expect(Object.keys(parent)).toEqual(['person', 'wards', 'can']);
      expect(names(parent.wards)).toEqual(['Kim']);
      expect(parent.can).toEqual({ update: true, delete: false, change_login: true, set_password: false, invite: true, add_guardian: false });
      // Notes are the managers' and the family's: an assistant sees the registration without them.
      const seenByHelper = (await call('helper', 'GET', `/people/${kim}?include=participations`)).json().data.participations;
      expect(seenByHelper[0]).not.toHaveProperty('notes');
    });

    it('says what each caller may do', async () => {
      await user('parent', null);
      created(await call('admin', 'POST', `/people/${kim}/guardians`, { guardian_id: ids.parent }));
      const can = async (who: string, id: number) => (await call(who, 'GET', `/people/${id}?include=can`)).json().data.can;
      expect(await can('admin', kim)).toEqual({ update: true, delete: true, change_login: true, set_password: true, invite: false, add_guardian: true });
      expect(await can('helper', kim)).toEqual({ update: false, delete: false, change_login: false, set_password: false, invite: false, add_guardian: false });
      expect(await can('parent', kim)).toEqual({ update: true, delete: false, change_login: false, set_password: false, invite: false, add_guardian: false });
      expect(await can('leader', ids.parent!)).toEqual({ update: true, delete: false, change_login: false, set_password: false, invite: false, add_guardian: false });
    });

    it('refuses an unknown list, participations without events:read, and hides whom the caller does not see', async () => {
      expect(errorsOf(await call('leader', 'GET', `/people/${kim}?include=memberships,secrets`))).toEqual({ include: ['The selected include is invalid.'] });
      expect(errorsOf(await call('leader', 'GET', `/people/${kim}?include=`))).toEqual({ include: ['The selected include is invalid.'] });
      expect(errorsOf(await call('leader', 'GET', `/people/${kim}?includes=can`))).toHaveProperty('includes');
      tokens.limited = created(await call('leader', 'POST', '/tokens', { name: 'people only', abilities: ['people:read'] })).plainTextToken;
      const refused = await call('limited', 'GET', `/people/${kim}?include=participations`);
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().message).toBe('Invalid ability provided.');
      expect((await call('limited', 'GET', `/people/${kim}?include=memberships,can`)).statusCode).toBe(200);
      await user('other', troopB, 'leader');
      expect((await call('other', 'GET', `/people/${kim}?include=can`)).json()).toEqual({ success: false, message: 'Person not found.' });
    });
  });
});
