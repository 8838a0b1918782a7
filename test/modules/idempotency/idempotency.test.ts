import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/wait.js';

/** Safe retries of a POST with `Idempotency-Key`. */
describe('Idempotency-Key', () => {
  let t: TestApp;
  let root: number;
  const tokens: Record<string, string> = {};
  const post = (who: string, url: string, payload: object, key?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api${url}`,
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens[who]}`, ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload,
    });
  const groupNames = async () =>
    (await t.storage.tenantDb('demo').selectFrom('groups').select('name').where('parent_id', '=', root).execute()).map((row) => row.name).sort();
  const storedKeys = () => t.storage.tenantDb('demo').selectFrom('idempotency_keys').selectAll().execute();

  beforeEach(async () => {
    t = await buildTestApp();
    root = await t.rootGroupId('demo');
    for (const name of ['admin', 'other']) {
      const user = await t.addUser('demo', { username: name, email: `${name}@example.com` });
      await t.grant('demo', user.id, root, 'admin');
      tokens[name] = await t.login('demo', name, PASSWORD);
    }
  });
  afterEach(() => t.close());

  it('runs a POST once and answers its repeat with the first answer, marked as replayed', async () => {
    const first = await post('admin', '/groups', { parent_id: root, name: 'Troop' }, 'create-troop-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('admin', '/groups', { parent_id: root, name: 'Troop' }, 'create-troop-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.body).toBe(first.body);
    expect(await groupNames()).toEqual(['Troop']);
    // Without the header, or with another key, a POST runs as always.
    expect((await post('admin', '/groups', { parent_id: root, name: 'Troop' })).statusCode).toBe(201);
    expect((await post('admin', '/groups', { parent_id: root, name: 'Troop' }, 'create-troop-2')).statusCode).toBe(201);
    expect(await groupNames()).toEqual(['Troop', 'Troop', 'Troop']);
  });

  it('replays a refusal too, and refuses the same key with another request', async () => {
    const refused = await post('admin', '/groups', { parent_id: 999999, name: 'Lost' }, 'k');
    expect(refused.statusCode).toBe(422);
    const again = await post('admin', '/groups', { parent_id: 999999, name: 'Lost' }, 'k');
    expect(again.statusCode).toBe(422);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(refused.json());
    for (const [url, payload] of [['/groups', { parent_id: root, name: 'Other' }], ['/role-types', { key: 'scout', label: 'Scout', permission: 'read', scope: 'group' }]] as const) {
      const reused = await post('admin', url, payload, 'k');
      expect(reused.statusCode).toBe(422);
      expect(reused.json()).toEqual({
        success: false,
        message: 'The Idempotency-Key was used for another request.',
        errors: { idempotency_key: ['The Idempotency-Key was used for another request.'] },
      });
    }
  });

  it('keeps keys apart per token owner, and refuses malformed keys', async () => {
    expect((await post('admin', '/groups', { parent_id: root, name: 'A' }, 'same')).statusCode).toBe(201);
    const theirs = await post('other', '/groups', { parent_id: root, name: 'A' }, 'same');
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await groupNames()).toEqual(['A', 'A']);
    for (const bad of ['', 'has space', 'x'.repeat(256), 'ümlaut']) {
      const answer = await post('admin', '/groups', { parent_id: root, name: 'B' }, bad);
      expect(answer.statusCode, JSON.stringify(bad)).toBe(422);
      expect(answer.json().errors).toEqual({ idempotency_key: ['The Idempotency-Key header must be 1 to 255 visible ASCII characters.'] });
    }
    expect((await post('admin', '/groups', { parent_id: root, name: 'B' }, 'x'.repeat(255))).statusCode).toBe(201);
  });

  it('answers 409 to a repeat while the first request still runs', async () => {
    // Hashing the new person's password keeps the first request running while the second arrives.
    const person = { firstname: 'Pat', lastname: 'Doe', username: 'pat', email: 'pat@example.com', password: 'a long password', membership: { group_id: root, role_type: 'member' } };
    // The repeat is sent once the first has claimed the key, not at the same moment: sent together,
    // the repeat was once delayed past the first's end on a busy machine, and answered as a replay.
    const first = post('admin', '/people', person, 'new-pat');
    await waitFor(async () => (await storedKeys()).some((row) => row.key === 'new-pat'), 10_000, 1);
    const repeat = await post('admin', '/people', person, 'new-pat');
    expect(repeat.statusCode).toBe(409);
    expect(repeat.json()).toEqual({ success: false, message: 'A request with this Idempotency-Key is in progress.' });
    expect((await first).statusCode).toBe(201);
    const replay = await post('admin', '/people', person, 'new-pat');
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('runs again after 24 hours, or when the first request was abandoned by a process that died', async () => {
    expect((await post('admin', '/groups', { parent_id: root, name: 'Old' }, 'old')).statusCode).toBe(201);
    const db = t.storage.tenantDb('demo');
    await db.updateTable('idempotency_keys').set({ created_at: toDbTimestamp(new Date(Date.now() - 25 * 3600_000)) }).execute();
    const later = await post('admin', '/groups', { parent_id: root, name: 'Old' }, 'old');
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();

    // A first request whose process died: running, past its time.
    await db.updateTable('idempotency_keys').set({ status_code: null, body: null, running_until: toDbTimestamp(new Date(Date.now() - 1000)) }).execute();
    const taken = await post('admin', '/groups', { parent_id: root, name: 'Old' }, 'old');
    expect(taken.statusCode).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    expect(await groupNames()).toEqual(['Old', 'Old', 'Old']);
  });

  it('covers the CSV import too, whose body is a file', async () => {
    const upload = (body: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/people/import?group_id=${root}&role_type=member`,
        headers: { host: hostOf('demo'), accept: 'application/json', 'content-type': 'text/csv', authorization: `Bearer ${tokens.admin}`, 'idempotency-key': 'import-1' },
        payload: body,
      });
    const first = await upload('firstname,lastname\r\nMia,Kid\r\n');
    expect(first.json().data).toEqual({ created: 1, updated: 0, unchanged: 0 });
    const again = await upload('firstname,lastname\r\nMia,Kid\r\n');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect((await upload('firstname,lastname\r\nMax,Kid\r\n')).json().message).toBe('The Idempotency-Key was used for another request.');
    expect(await t.storage.tenantDb('demo').selectFrom('users').select('firstname').where('lastname', '=', 'Kid').execute()).toEqual([{ firstname: 'Mia' }]);
  });

  it('takes no part in the answers that carry a secret, nor in other methods', async () => {
    const login = () =>
      t.app.inject({ method: 'POST', url: '/api/login', headers: { ...JSON_HEADERS, host: hostOf('demo'), 'idempotency-key': 'login' }, payload: { username: 'admin', password: PASSWORD } });
    const [one, two] = [await login(), await login()];
    expect(one.statusCode).toBe(200);
    expect(one.json().data.api_key).not.toBe(two.json().data.api_key);
    // A browser's sign-in: its secret is the session cookie, which a replay could not give again.
    const xsrf = /XSRF-TOKEN=([A-Za-z0-9]+)/.exec(String((await t.app.inject({ method: 'GET', url: '/api/csrf-cookie', headers: { host: hostOf('demo') } })).headers['set-cookie']))![1]!;
    const signIn = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/session',
        headers: { ...JSON_HEADERS, host: hostOf('demo'), 'idempotency-key': 'session', cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf },
        payload: { username: 'admin', password: PASSWORD },
      });
    const [first, second] = [await signIn(), await signIn()];
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(String(second.headers['set-cookie'])).toMatch(/groupadmin_session=/);
    const token = () => post('admin', '/tokens', { name: 'script' }, 'token');
    const [a, b] = [await token(), await token()];
    expect(a.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.body).not.toBe(b.body);
    expect(await storedKeys()).toEqual([]);
  });

  it('forgets the keys of an erased person with the answers stored for them', async () => {
    expect((await post('other', '/groups', { parent_id: root, name: 'Theirs' }, 'mine')).statusCode).toBe(201);
    expect(await storedKeys()).toHaveLength(1);
    const other = await t.storage.tenantDb('demo').selectFrom('users').select('id').where('username', '=', 'other').executeTakeFirstOrThrow();
    const erased = await t.app.inject({ method: 'DELETE', url: `/api/people/${other.id}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens.admin}` } });
    expect(erased.statusCode).toBe(204);
    expect(await storedKeys()).toEqual([]);
  });

  it('forgets the answers that showed a person once the person is erased: the key replays 404, nothing personal is kept', async () => {
    const troop = (await post('admin', '/groups', { parent_id: root, name: 'Troop' }, 'troop')).json().data.group;
    const eve = { firstname: 'Eve', lastname: 'Erased', email: 'eve@example.org', phonenumber: '+41 31 555 01 01', membership: { group_id: troop.id, role_type: 'member' } };
    const created = await post('admin', '/people', eve, 'create-eve');
    expect(created.statusCode).toBe(201);
    const id = created.json().data.person.id as number;
    expect((await post('other', '/memberships', { person_id: id, group_id: root, role_type: 'member' }, 'eve-at-root')).statusCode).toBe(201);
    const erased = await t.app.inject({ method: 'DELETE', url: `/api/people/${id}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens.admin}` } });
    expect(erased.statusCode).toBe(204);

    for (const [who, url, payload, key] of [['admin', '/people', eve, 'create-eve'], ['other', '/memberships', { person_id: id, group_id: root, role_type: 'member' }, 'eve-at-root']] as const) {
      const again = await post(who, url, payload, key);
      expect(again.statusCode, key).toBe(404);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual({ success: false, message: 'Person not found.' });
    }
    // Nobody was created again, and what is stored says nothing about her.
    expect((await t.storage.tenantDb('demo').selectFrom('users').select('id').where('lastname', '=', 'Erased').execute())).toEqual([]);
    const stored = JSON.stringify(await storedKeys());
    for (const personal of ['Eve', 'eve@example.org', '555 01 01']) expect(stored).not.toContain(personal);
    // Other answers stay as they were.
    const troopAgain = await post('admin', '/groups', { parent_id: root, name: 'Troop' }, 'troop');
    expect(troopAgain.statusCode).toBe(201);
    expect(troopAgain.json().data.group.id).toBe(troop.id);
  });
});
