import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pruneRecords } from '../../../src/recording/records.js';
import { pruneChangeRecords, scheduleChangePruning } from '../../../src/modules/changes/prune.js';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';
import { daysFromNow } from '../../helpers/events.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Change records and the feed (docs/api/sync.md). */
describe('change records and GET /changes', () => {
  let t: TestApp;
  let root: number;
  let adminId: number;
  const tokens: Record<string, string> = {};
  const call = (who: string, method: Method, url: string, payload?: object) =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens[who]}` }, ...(payload ? { payload } : {}) });
  const records = () => t.storage.tenantDb('demo').selectFrom('change_records').selectAll().orderBy('seq').execute();
  const summary = async (fromSeq = 0) =>
    (await records())
      .filter((record) => Number(record.seq) > fromSeq)
      .map((record) => `${record.entity}:${record.entity_id}:${record.action}`);
  const lastSeq = async () => Number((await records()).at(-1)?.seq ?? 0);

  beforeEach(async () => {
    t = await buildTestApp();
    root = await t.rootGroupId('demo');
    const admin = await t.addUser('demo', { username: 'admin' });
    adminId = admin.id;
    await t.grant('demo', admin.id, root, 'admin');
    tokens.admin = await t.login('demo', 'admin', PASSWORD);
  });
  afterEach(() => t.close());

  it('records every create, update and delete with its actor and the fields that changed', async () => {
    const start = await lastSeq();
    const troop = (await call('admin', 'POST', '/groups', { parent_id: root, name: 'Troop' })).json().data.group.id;
    expect((await call('admin', 'PATCH', `/groups/${troop}`, { name: 'Troop 1', kind: 'troop' })).statusCode).toBe(200);
    const kid = (await call('admin', 'POST', '/people', { firstname: 'Kim', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id;
    const parent = (await call('admin', 'POST', '/people', { firstname: 'Pam', lastname: 'Parent', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id;
    expect((await call('admin', 'POST', `/people/${kid}/guardians`, { guardian_id: parent })).statusCode).toBe(201);
    expect((await call('admin', 'PATCH', `/people/${kid}`, { city: 'Bern', is_vegetarian: true })).statusCode).toBe(200);
    expect((await call('admin', 'POST', '/role-types', { key: 'cook', permission: 'read', scope: 'group' })).statusCode).toBe(201);
    expect((await call('admin', 'PATCH', '/role-types/cook', { label: 'Cook' })).statusCode).toBe(200);
    const cook = (await call('admin', 'POST', '/memberships', { person_id: parent, group_id: troop, role_type: 'cook' })).json().data.membership.id;
    expect((await call('admin', 'DELETE', `/memberships/${cook}`)).statusCode).toBe(204);
    expect((await call('admin', 'DELETE', '/role-types/cook')).statusCode).toBe(204);
    const event = (await call('admin', 'POST', '/events', { group_id: troop, name: 'Camp', starts_at: daysFromNow(10), ends_at: daysFromNow(12), capacity: 1 })).json().data.event.id;
    const kidPlace = (await call('admin', 'POST', `/events/${event}/participations`, { person_id: kid })).json().data.participation.id;
    const parentPlace = (await call('admin', 'POST', `/events/${event}/participations`, { person_id: parent })).json().data.participation.id;
    // Cancelling the kid's seat promotes the parent from the waiting list: a change of its own.
    expect((await call('admin', 'PATCH', `/participations/${kidPlace}`, { state: 'cancelled' })).statusCode).toBe(200);
    expect((await call('admin', 'DELETE', `/people/${kid}/guardians/${parent}`)).statusCode).toBe(204);

    expect(await summary(start)).toEqual([
      `group:${troop}:created`,
      `group:${troop}:updated`,
      `person:${kid}:created`,
      expect.stringMatching(/^membership:\d+:created$/),
      `person:${parent}:created`,
      expect.stringMatching(/^membership:\d+:created$/),
      `guardianship:${kid}:created`,
      `person:${kid}:updated`,
      'role_type:cook:created',
      'role_type:cook:updated',
      `membership:${cook}:created`,
      `membership:${cook}:deleted`,
      'role_type:cook:deleted',
      `event:${event}:created`,
      `participation:${kidPlace}:created`,
      `participation:${parentPlace}:created`,
      `participation:${parentPlace}:updated`,
      `participation:${kidPlace}:updated`,
      `guardianship:${kid}:deleted`,
    ]);
    const all = (await records()).filter((record) => Number(record.seq) > start);
    expect(all.every((record) => Number(record.actor_id) === adminId)).toBe(true);
    const changesOf = (entity: string, id: string | number, action: string) =>
      JSON.parse(all.find((record) => record.entity === entity && record.entity_id === String(id) && record.action === action)!.changes);
    expect(changesOf('group', troop, 'updated')).toEqual({ name: ['Troop', 'Troop 1'], kind: ['', 'troop'] });
    expect(changesOf('person', kid, 'updated')).toEqual({ city: [null, 'Bern'], is_vegetarian: [false, true] });
    expect(changesOf('role_type', 'cook', 'updated')).toEqual({ label: ['cook', 'Cook'] });
    expect(changesOf('participation', kidPlace, 'updated')).toEqual({ state: ['accepted', 'cancelled'] });
    expect(changesOf('participation', parentPlace, 'updated')).toEqual({ state: ['waitlisted', 'accepted'] });
    expect(changesOf('guardianship', kid, 'created')).toEqual({ guardian_id: [null, parent] });
  });

  it('records a move for the moved group and each group below it, and never the words of notes', async () => {
    const a = (await call('admin', 'POST', '/groups', { parent_id: root, name: 'A' })).json().data.group.id;
    const b = (await call('admin', 'POST', '/groups', { parent_id: root, name: 'B' })).json().data.group.id;
    const child = (await call('admin', 'POST', '/groups', { parent_id: a, name: 'A1' })).json().data.group.id;
    const start = await lastSeq();
    expect((await call('admin', 'PATCH', `/groups/${a}`, { parent_id: b })).statusCode).toBe(200);
    expect(await summary(start)).toEqual([`group:${a}:updated`, `group:${child}:updated`]);
    expect(JSON.parse((await records()).at(-2)!.changes)).toEqual({ parent_id: [root, b] });

    const event = (await call('admin', 'POST', '/events', { group_id: b, name: 'Camp', starts_at: daysFromNow(3), ends_at: daysFromNow(4) })).json().data.event.id;
    const place = (await call('admin', 'POST', `/events/${event}/participations`, { person_id: adminId, notes: 'first' })).json().data.participation.id;
    expect((await call('admin', 'PATCH', `/participations/${place}`, { notes: 'epilepsy medication' })).statusCode).toBe(200);
    const last = (await records()).at(-1)!;
    expect(last).toMatchObject({ entity: 'participation', action: 'updated' });
    expect(JSON.parse(last.changes)).toEqual({ notes: ['[hidden]', '[hidden]'] });
  });

  it('hides passwords, names no actor for the command line, and leaves no record of a change that failed', async () => {
    const start = await lastSeq();
    const bob = await t.addUser('demo', { username: 'bob', email: 'bob@example.com' });
    await t.grant('demo', bob.id, root, 'member');
    const created = (await records()).find((record) => record.entity === 'person' && record.entity_id === String(bob.id))!;
    expect(created).toMatchObject({ action: 'created', actor_id: null });
    expect((await call('admin', 'PATCH', `/people/${bob.id}`, { password: 'a new long password' })).statusCode).toBe(200);
    const passwordChange = (await records()).at(-1)!;
    expect(passwordChange).toMatchObject({ entity: 'person', action: 'updated' });
    expect(JSON.parse(passwordChange.changes)).toEqual({ password: ['[hidden]', '[hidden]'] });

    const before = await lastSeq();
    expect((await call('admin', 'DELETE', `/groups/${root}`)).statusCode).toBe(422);
    expect((await call('admin', 'POST', '/memberships', { person_id: bob.id, group_id: root, role_type: 'member' })).statusCode).toBe(422);
    expect(await lastSeq()).toBe(before);
    expect(before).toBeGreaterThan(start);
  });

  it('pages the feed in seq order from after=, answers next_after, and says 410 once it no longer reaches back', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) await call('admin', 'POST', '/groups', { parent_id: root, name });
    const newest = await lastSeq();
    const seen: number[] = [];
    let after = 0;
    for (;;) {
      const page = await call('admin', 'GET', `/changes?after=${after}&limit=2`);
      expect(page.statusCode).toBe(200);
      const { changes, next_after } = page.json().data;
      expect(Object.keys(page.json().data)).toEqual(['changes', 'next_after']);
      if (changes.length === 0) {
        expect(next_after).toBe(after);
        break;
      }
      for (const change of changes) expect(Object.keys(change)).toEqual(['seq', 'entity', 'entity_id', 'action', 'at']);
      seen.push(...changes.map((change: { seq: number }) => change.seq));
      after = next_after;
    }
    expect(seen).toEqual(Array.from({ length: newest }, (_, index) => index + 1));
    const first = (await call('admin', 'GET', '/changes?limit=1')).json().data.changes[0];
    expect(first).toMatchObject({ seq: 1, entity: 'person', entity_id: adminId, action: 'created' });
    expect(first.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    // Pruned: a reader from before is told to resynchronise; from the oldest kept, it reads on.
    await pruneRecords(t.storage.tenantDb('demo'), toDbTimestamp(new Date(Date.now() + 1000)));
    const gone = await call('admin', 'GET', '/changes?after=2');
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toEqual({ success: false, message: 'The change feed no longer reaches back that far.' });
    const fresh = await call('admin', 'GET', '/changes');
    expect(fresh.json().data).toEqual({ changes: [], next_after: newest });
    expect((await call('admin', 'GET', `/changes?after=${newest}`)).statusCode).toBe(200);
  });

  it('prunes the records older than the retention in every tenant, and only those', async () => {
    await t.addTenant('other');
    await t.addUser('other', { username: 'someone' });
    const kept = await pruneChangeRecords(t.storage, 30);
    expect(kept).toEqual({ tenants: 2, deleted: 0 });
    const later = await pruneChangeRecords(t.storage, 30, new Date(Date.now() + 31 * 86_400_000));
    expect(later.tenants).toBe(2);
    expect(later.deleted).toBeGreaterThanOrEqual(2);
    expect(await records()).toEqual([]);
    expect(await t.storage.tenantDb('other').selectFrom('change_records').selectAll().execute()).toEqual([]);
    expect((await call('admin', 'GET', '/changes?after=0')).statusCode).toBe(410);
  });

  it('prunes once a day after the first ten minutes; stop() waits for a prune under way', async () => {
    await t.addTenant('other');
    // The storage as it is, except that the prune's queries are counted as they finish.
    let finished = 0;
    const countFinished: KyselyPlugin = {
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        finished += 1;
        return result;
      },
    };
    const storage = new Proxy(t.storage, {
      get: (target, key, receiver) => (key === 'tenantDb' ? (slug: string) => target.tenantDb(slug).withPlugin(countFinished) : Reflect.get(target, key, receiver)),
    });
    const errors: unknown[] = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      const pruning = scheduleChangePruning(storage, 30, (err) => errors.push(err));
      vi.advanceTimersByTime(10 * 60_000 - 1);
      await Promise.resolve();
      expect(finished).toBe(0);
      vi.advanceTimersByTime(1);
      await pruning.stop();
      // The look for old records in each of the two tenants, both done when stop() returned.
      expect(finished).toBe(2);
      vi.advanceTimersByTime(2 * 86_400_000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(finished).toBe(2);
    } finally {
      vi.useRealTimers();
    }
    expect(errors).toEqual([]);
  });

  it('needs changes:read and read on the root; refuses unknown and out-of-range parameters', async () => {
    const member = await t.addUser('demo', { username: 'member', email: 'member@example.com' });
    await t.grant('demo', member.id, root, 'member');
    tokens.member = await t.login('demo', 'member', PASSWORD);
    expect((await call('member', 'GET', '/changes')).json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    const narrow = await call('admin', 'POST', '/tokens', { name: 'sync', abilities: ['people:read'] });
    tokens.narrow = narrow.json().data.plainTextToken ?? narrow.json().data.token;
    const refused = await call('narrow', 'GET', '/changes');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('Invalid ability provided.');
    expect((await call('admin', 'GET', '/changes?foo=1')).json().errors).toEqual({ foo: ['The foo field is prohibited.'] });
    for (const bad of ['limit=0', 'limit=1001', 'after=-1', 'after=x', 'after=1e300', `after=${'9'.repeat(20)}`]) expect((await call('admin', 'GET', `/changes?${bad}`)).statusCode, bad).toBe(422);
    expect((await call('admin', 'GET', '/changes?limit=1000')).statusCode).toBe(200);
  });

  it('names no actor on the tombstones of an administrator who erases themself', async () => {
    const other = await t.addUser('demo', { username: 'second', email: 'second@example.com' });
    await t.grant('demo', other.id, root, 'admin');
    const start = await lastSeq();
    expect((await call('admin', 'DELETE', `/people/${adminId}`)).statusCode).toBe(204);
    const tombstones = (await records()).filter((record) => Number(record.seq) > start);
    expect(tombstones.map((record) => record.entity)).toEqual(['membership', 'person']);
    for (const record of tombstones) expect(record.actor_id).toBeNull();
  });

  it('erasure leaves tombstones for the person and their rows, blanks earlier records and the actor', async () => {
    const troop = (await call('admin', 'POST', '/groups', { parent_id: root, name: 'Troop' })).json().data.group.id;
    const leader = (
      await call('admin', 'POST', '/people', {
        firstname: 'Lee', lastname: 'Leader', username: 'lee', email: 'lee@example.com', password: PASSWORD,
        membership: { group_id: troop, role_type: 'leader' },
      })
    ).json().data.person.id;
    const kid = (await call('admin', 'POST', '/people', { firstname: 'Kim', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id;
    await call('admin', 'POST', `/people/${kid}/guardians`, { guardian_id: leader });
    await call('admin', 'PATCH', `/people/${leader}`, { city: 'Bern' });
    tokens.lee = await t.login('demo', 'lee', PASSWORD);
    expect((await call('lee', 'PATCH', `/people/${kid}`, { city: 'Thun' })).statusCode).toBe(200);
    const event = (await call('admin', 'POST', '/events', { group_id: troop, name: 'Camp', starts_at: daysFromNow(10), ends_at: daysFromNow(12) })).json().data.event.id;
    const place = (await call('admin', 'POST', `/events/${event}/participations`, { person_id: leader })).json().data.participation.id;
    const start = await lastSeq();

    expect((await call('admin', 'DELETE', `/people/${leader}`)).statusCode).toBe(204);
    expect(await summary(start)).toEqual([
      expect.stringMatching(/^membership:\d+:deleted$/),
      `guardianship:${kid}:deleted`,
      `participation:${place}:deleted`,
      `person:${leader}:deleted`,
    ]);
    const stored = await records();
    const about = stored.filter((record) => (record.entity === 'person' && record.entity_id === String(leader)) || Number(record.other_person_id) === leader);
    expect(about.length).toBeGreaterThan(2);
    for (const record of about) expect(record.changes).toBe('{}');
    // The kid's record of the change Lee made stays, without naming Lee.
    const kidChange = stored.find((record) => record.entity === 'person' && record.entity_id === String(kid) && record.action === 'updated')!;
    expect(kidChange.actor_id).toBeNull();
    expect(JSON.parse(kidChange.changes)).toEqual({ city: [null, 'Thun'] });
  });
});
