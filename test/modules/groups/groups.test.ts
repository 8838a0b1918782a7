import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

describe('groups', () => {
  let t: TestApp;
  let token: string;
  let root: number;
  beforeEach(async () => {
    t = await buildTestApp();
    const admin = await t.addUser('demo', { username: 'admin' });
    root = await t.rootGroupId('demo');
    await t.grant('demo', admin.id, root, 'admin');
    token = await t.login('demo', 'admin', PASSWORD);
  });
  afterEach(() => t.close());

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}`, ...headers }, ...(payload ? { payload } : {}) });
  const create = async (parent_id: number, name: string) => (await call('POST', '/groups', { parent_id, name })).json().data.group.id as number;

  it('lists the tree in pre-order by name, ignoring case and accents, across pages', async () => {
    const b = await create(root, 'beta');
    await create(root, 'Émile');
    const a = await create(root, 'alpha');
    await create(b, 'zeta');
    await create(a, 'Zoo');
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call('GET', `/groups?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.statusCode).toBe(200);
      names.push(...page.json().data.groups.map((g: { name: string }) => g.name));
      cursor = page.json().data.next_cursor;
    } while (cursor);
    expect(names).toEqual(['demo', 'alpha', 'Zoo', 'beta', 'zeta', 'Émile']);
  });

  it('moves a subtree and keeps "below" right; refuses a move below itself', async () => {
    const a = await create(root, 'a');
    const b = await create(a, 'b');
    const c = await create(b, 'c');
    const other = await create(root, 'other');
    expect((await call('PATCH', `/groups/${a}`, { parent_id: c })).json()).toEqual({
      success: false,
      message: 'The group cannot be moved below itself.',
      errors: { parent_id: ['The group cannot be moved below itself.'] },
    });
    const moved = await call('PATCH', `/groups/${b}`, { parent_id: other });
    expect(moved.statusCode).toBe(200);
    const below = await call('GET', `/groups?below=${other}`);
    expect(below.json().data.groups.map((g: { id: number }) => g.id)).toEqual([other, b, c]);
    expect((await call('GET', `/groups/${c}`)).json().data.ancestors).toEqual([root, other, b]);
  });

  it('answers ETags and honours If-Match', async () => {
    const a = await create(root, 'a');
    const got = await call('GET', `/groups/${a}`);
    const etag = got.headers.etag as string;
    expect(etag).toMatch(/^"\d+"$/);
    const first = await call('PATCH', `/groups/${a}`, { name: 'b' }, { 'if-match': etag });
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).not.toBe(etag);
    const stale = await call('PATCH', `/groups/${a}`, { name: 'c' }, { 'if-match': etag });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toEqual({ success: false, message: 'The resource was changed by someone else.' });
  });

  it('refuses to delete the root, a group with subgroups, and refuses edited cursors and unknown parameters', async () => {
    expect((await call('DELETE', `/groups/${root}`)).json().message).toBe('The root group cannot be deleted or moved.');
    const a = await create(root, 'a');
    await create(a, 'b');
    expect((await call('DELETE', `/groups/${a}`)).json().message).toBe('The group still has subgroups.');
    const page = (await call('GET', '/groups?limit=1')).json().data.next_cursor as string;
    // The signature's second-to-last character changed (to one it was not).
    const edited = `${page.slice(0, -2)}${page.at(-2) === 'A' ? 'B' : 'A'}${page.slice(-1)}`;
    expect((await call('GET', `/groups?cursor=${encodeURIComponent(edited)}`)).json().errors).toEqual({ cursor: ['The cursor field is invalid.'] });
    expect((await call('GET', '/groups?foo=1')).json().errors).toEqual({ foo: ['The foo field is prohibited.'] });
    expect((await call('GET', '/groups?limit=0')).statusCode).toBe(422);
  });

  it('takes a cursor only with the filters that produced it, and only in its own tenant', async () => {
    const a = await create(root, 'a');
    await create(a, 'a1');
    await create(a, 'a2');
    const cursor = (await call('GET', `/groups?parent_id=${a}&limit=1`)).json().data.next_cursor as string;
    const next = await call('GET', `/groups?parent_id=${a}&limit=1&cursor=${encodeURIComponent(cursor)}`);
    expect(next.json().data.groups.map((g: { name: string }) => g.name)).toEqual(['a2']);
    const otherFilter = await call('GET', `/groups?parent_id=${root}&cursor=${encodeURIComponent(cursor)}`);
    expect(otherFilter.statusCode).toBe(422);
    expect(otherFilter.json().errors).toEqual({ cursor: ['The cursor field is invalid.'] });

    await t.addTenant('other');
    const stranger = await t.addUser('other', { username: 'admin' });
    await t.grant('other', stranger.id, await t.rootGroupId('other'), 'admin');
    const otherToken = await t.login('other', 'admin', PASSWORD);
    const elsewhere = await t.app.inject({
      method: 'GET',
      url: `/api/groups?parent_id=${a}&cursor=${encodeURIComponent(cursor)}`,
      headers: { ...JSON_HEADERS, host: hostOf('other'), authorization: `Bearer ${otherToken}` },
    });
    expect(elsewhere.statusCode).toBe(422);
    expect(elsewhere.json().errors).toEqual({ cursor: ['The cursor field is invalid.'] });
  });
});
