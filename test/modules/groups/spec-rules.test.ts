import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/modules/tokens/rules.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

/**
 * Black-box tests of the rules for groups and role types: who may change role
 * types, the default catalogue, list filters, 403 on the root and on moves, limits and foreign cursors.
 */

const UNAUTHORIZED = { success: false, message: 'This action is unauthorized.' };

describe('groups and role types: the rules', () => {
  let t: TestApp;
  let root: number;
  let troop: number;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const call = (who: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens[who]}` }, ...(payload ? { payload } : {}) });
  const group = async (parent_id: number, name: string) => {
    const answer = await call('admin', 'POST', '/groups', { parent_id, name });
    expect(answer.statusCode, answer.body).toBe(201);
    return answer.json().data.group.id as number;
  };
  /** A user with a login and one membership, logged in as `username`. */
  const person = async (username: string, groupId: number, roleType: string) => {
    const user = await t.addUser('demo', { username });
    ids[username] = user.id;
    await t.grant('demo', user.id, groupId, roleType);
    tokens[username] = await t.login('demo', username, PASSWORD);
  };
  const roleTypes = async () => (await call('admin', 'GET', '/role-types')).json().data.role_types as { key: string }[];

  beforeEach(async () => {
    t = await buildTestApp();
    root = await t.rootGroupId('demo');
    await person('admin', root, 'admin');
    troop = await group(root, 'Troop');
    await person('rootleader', root, 'leader'); // write on the root, but not admin
    await person('troopadmin', troop, 'admin'); // admin, but not on the root
    await person('member', root, 'member'); // none
  });
  afterEach(() => t.close());

  describe('role types', () => {
    it('lists the four defaults to any person, fields in the order key, label, permission, scope', async () => {
      const answer = await call('member', 'GET', '/role-types');
      expect(answer.statusCode).toBe(200);
      const list = answer.json().data.role_types as Record<string, string>[];
      // The spec does not fix the order of this list: compare by key.
      expect([...list].sort((a, b) => a.key!.localeCompare(b.key!))).toEqual([
        { key: 'admin', label: 'Administrator', permission: 'admin', scope: 'subtree' },
        { key: 'assistant', label: 'Assistant', permission: 'read', scope: 'group' },
        { key: 'leader', label: 'Leader', permission: 'write', scope: 'subtree' },
        { key: 'member', label: 'Member', permission: 'none', scope: 'group' },
      ]);
      for (const item of list) expect(Object.keys(item)).toEqual(['key', 'label', 'permission', 'scope']);
      expect(answer.json().data.next_cursor).toBeUndefined(); // not paged
    });

    it('refuses POST, PATCH and DELETE with 403 to everyone but an admin on the root', async () => {
      for (const who of ['rootleader', 'troopadmin', 'member']) {
        const created = await call(who, 'POST', '/role-types', { key: 'observer', label: 'Observer', permission: 'read', scope: 'group' });
        expect(created.statusCode, `${who} POST`).toBe(403);
        expect(created.json()).toEqual(UNAUTHORIZED);
        const changed = await call(who, 'PATCH', '/role-types/member', { label: 'Scout' });
        expect(changed.statusCode, `${who} PATCH`).toBe(403);
        expect(changed.json()).toEqual(UNAUTHORIZED);
        const deleted = await call(who, 'DELETE', '/role-types/assistant');
        expect(deleted.statusCode, `${who} DELETE`).toBe(403);
        expect(deleted.json()).toEqual(UNAUTHORIZED);
      }
      const keys = (await roleTypes()).map((r) => r.key).sort();
      expect(keys).toEqual(['admin', 'assistant', 'leader', 'member']);
      expect((await roleTypes()).find((r) => r.key === 'member')).toMatchObject({ label: 'Member' });
    });

    it('lets an admin on the root create, change and delete a role type', async () => {
      const created = await call('admin', 'POST', '/role-types', { key: 'observer', label: 'Observer', permission: 'read', scope: 'group' });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toEqual({
        success: true,
        message: 'success',
        data: { role_type: { key: 'observer', label: 'Observer', permission: 'read', scope: 'group' } },
      });
      const changed = await call('admin', 'PATCH', '/role-types/observer', { label: 'Watcher', permission: 'write', scope: 'subtree' });
      expect(changed.statusCode).toBe(200);
      expect(changed.json().data.role_type).toEqual({ key: 'observer', label: 'Watcher', permission: 'write', scope: 'subtree' });
      const deleted = await call('admin', 'DELETE', '/role-types/observer');
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      expect((await roleTypes()).map((r) => r.key)).not.toContain('observer');
      const again = await call('admin', 'DELETE', '/role-types/observer');
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({ success: false, message: 'Role type not found.' });
    });

    it('needs the roles:write ability even for an admin on the root', async () => {
      const narrow = await issueToken(t.storage.tenantDb('demo'), ids.admin!, { tokenPrefix: '', abilities: ['groups:read', 'groups:write', 'people:write'] });
      tokens.narrow = narrow.plainTextToken;
      const created = await call('narrow', 'POST', '/role-types', { key: 'observer', label: 'Observer', permission: 'read', scope: 'group' });
      expect(created.statusCode).toBe(403);
      expect(created.json()).toEqual({ success: false, message: 'Invalid ability provided.' });
      expect((await call('narrow', 'DELETE', '/role-types/assistant')).json()).toEqual({ success: false, message: 'Invalid ability provided.' });
    });

    it('refuses a key that is already taken with 422 on key', async () => {
      // The spec gives no wording for a taken key: the test asserts the field only.
      const taken = await call('admin', 'POST', '/role-types', { key: 'leader', label: 'Other leader', permission: 'read', scope: 'group' });
      expect(taken.statusCode).toBe(422);
      expect(Object.keys(taken.json().errors)).toEqual(['key']);
      expect(taken.json().success).toBe(false);
      expect((await call('admin', 'POST', '/role-types', { key: 'observer', label: 'A', permission: 'read', scope: 'group' })).statusCode).toBe(201);
      const twice = await call('admin', 'POST', '/role-types', { key: 'observer', label: 'B', permission: 'write', scope: 'subtree' });
      expect(twice.statusCode).toBe(422);
      expect(Object.keys(twice.json().errors)).toEqual(['key']);
      expect((await roleTypes()).find((r) => r.key === 'leader')).toEqual({ key: 'leader', label: 'Leader', permission: 'write', scope: 'subtree' });
    });

    it('refuses to delete a role type while any membership uses it, an ended one too', async () => {
      for (const key of ['observer', 'former']) {
        expect((await call('admin', 'POST', '/role-types', { key, label: key, permission: 'read', scope: 'group' })).statusCode).toBe(201);
      }
      const kid = await t.addUser('demo', { username: 'kid' });
      const active = await t.grant('demo', kid.id, troop, 'observer');
      // "422 while any membership uses it": read as any membership at all, ended ones included.
      const ended = await t.grant('demo', kid.id, troop, 'former', { startOn: '2000-01-01', endOn: '2001-01-01' });
      for (const [key, membership] of [['observer', active], ['former', ended]] as const) {
        const refused = await call('admin', 'DELETE', `/role-types/${key}`);
        expect(refused.statusCode, key).toBe(422);
        expect(refused.json().success).toBe(false);
        expect(refused.json().message).toBe('The role type is still in use.');
        expect((await roleTypes()).map((r) => r.key)).toContain(key);
        expect((await call('admin', 'DELETE', `/memberships/${membership}`)).statusCode).toBe(204);
        expect((await call('admin', 'DELETE', `/role-types/${key}`)).statusCode, key).toBe(204);
      }
      // A default in use (the admin's own membership) is refused the same way.
      expect((await call('admin', 'DELETE', '/role-types/admin')).json().message).toBe('The role type is still in use.');
    });
  });

  describe('groups', () => {
    const names = (answer: { json(): { data: { groups: { name: string }[] } } }) => answer.json().data.groups.map((g) => g.name);

    it('filters by parent_id: the direct children only, in name order', async () => {
      const beta = await group(root, 'Beta');
      const alpha = await group(root, 'alpha');
      await group(alpha, 'alpha kid');
      await group(beta, 'beta kid');
      const children = await call('member', 'GET', `/groups?parent_id=${root}`);
      expect(children.statusCode).toBe(200);
      expect(names(children)).toEqual(['alpha', 'Beta', 'Troop']);
      expect(children.json().data.groups.every((g: { parent_id: number }) => g.parent_id === root)).toBe(true);
      expect(names(await call('member', 'GET', `/groups?parent_id=${alpha}`))).toEqual(['alpha kid']);
      expect(names(await call('member', 'GET', `/groups?parent_id=${troop}`))).toEqual([]);
    });

    it('filters by q, a name search, keeping the tree order', async () => {
      const rovers = await group(root, 'Rovers');
      await group(rovers, 'Cub Scouts');
      await group(root, 'Wolf Cubs');
      await group(troop, 'Eagles');
      const found = await call('member', 'GET', '/groups?q=Cub');
      expect(found.statusCode).toBe(200);
      expect(names(found)).toEqual(['Cub Scouts', 'Wolf Cubs']);
      // The spec says only "name search"; like q on people it is read as a case-insensitive substring.
      expect(names(await call('member', 'GET', '/groups?q=cub'))).toEqual(['Cub Scouts', 'Wolf Cubs']);
      expect(names(await call('member', 'GET', `/groups?q=Cub&parent_id=${root}`))).toEqual(['Wolf Cubs']);
      expect(names(await call('member', 'GET', '/groups?q=nothing-like-this'))).toEqual([]);
    });

    it('answers 403 to deleting the root for a caller without write on it', async () => {
      for (const who of ['member', 'troopadmin']) {
        const refused = await call(who, 'DELETE', `/groups/${root}`);
        expect(refused.statusCode, who).toBe(403);
        expect(refused.json()).toEqual(UNAUTHORIZED);
      }
      // With write on the root it is 422: the root cannot be deleted.
      const rootWriter = await call('rootleader', 'DELETE', `/groups/${root}`);
      expect(rootWriter.statusCode).toBe(422);
      expect(rootWriter.json().message).toBe('The root group cannot be deleted or moved.');
      expect((await call('member', 'GET', `/groups/${root}`)).statusCode).toBe(200);
    });

    it('answers 403 to a move without write on the new parent, and moves nothing', async () => {
      const patrol = await group(troop, 'Patrol');
      const other = await group(troop, 'Other patrol');
      const elsewhere = await group(root, 'Elsewhere');
      const refused = await call('troopadmin', 'PATCH', `/groups/${patrol}`, { parent_id: elsewhere });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual(UNAUTHORIZED);
      expect((await call('admin', 'GET', `/groups/${patrol}`)).json().data.ancestors).toEqual([root, troop]);
      // Write on the group and on the new parent: allowed.
      const moved = await call('troopadmin', 'PATCH', `/groups/${patrol}`, { parent_id: other });
      expect(moved.statusCode).toBe(200);
      expect(moved.json().data.group.parent_id).toBe(other);
      // Write on the new parent only (not on the group): refused as well.
      await person('elsewhereleader', elsewhere, 'leader');
      const notOnGroup = await call('elsewhereleader', 'PATCH', `/groups/${patrol}`, { parent_id: elsewhere });
      expect(notOnGroup.statusCode).toBe(403);
      expect(notOnGroup.json()).toEqual(UNAUTHORIZED);
    });

    it('answers 422 on limit for limit=201 and takes 200 and 1', async () => {
      const refused = await call('member', 'GET', '/groups?limit=201');
      expect(refused.statusCode).toBe(422);
      expect(refused.json().success).toBe(false);
      expect(Object.keys(refused.json().errors)).toEqual(['limit']);
      expect((await call('member', 'GET', '/groups?limit=200')).statusCode).toBe(200);
      const one = await call('member', 'GET', '/groups?limit=1');
      expect(one.statusCode).toBe(200);
      expect(one.json().data.groups).toHaveLength(1);
    });

    it('answers 422 on cursor for a cursor issued for another list', async () => {
      for (const name of ['A', 'B']) await group(root, name);
      const peopleCursor = (await call('admin', 'GET', '/people?limit=1')).json().data.next_cursor as string;
      const membershipsCursor = (await call('admin', 'GET', `/groups/${root}/memberships?limit=1`)).json().data.next_cursor as string;
      const groupsCursor = (await call('admin', 'GET', '/groups?limit=1')).json().data.next_cursor as string;
      for (const cursor of [peopleCursor, membershipsCursor, groupsCursor]) expect(typeof cursor).toBe('string');

      for (const cursor of [peopleCursor, membershipsCursor]) {
        const refused = await call('admin', 'GET', `/groups?cursor=${encodeURIComponent(cursor)}`);
        expect(refused.statusCode).toBe(422);
        expect(Object.keys(refused.json().errors)).toEqual(['cursor']);
      }
      for (const url of ['/people', `/groups/${root}/memberships`]) {
        const refused = await call('admin', 'GET', `${url}?cursor=${encodeURIComponent(groupsCursor)}`);
        expect(refused.statusCode, url).toBe(422);
        expect(Object.keys(refused.json().errors)).toEqual(['cursor']);
      }
      // The cursor works on its own list.
      expect((await call('admin', 'GET', `/groups?limit=1&cursor=${encodeURIComponent(groupsCursor)}`)).statusCode).toBe(200);
    });
  });
});
