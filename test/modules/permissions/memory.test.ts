import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { createRoleMemory } from '../../../src/modules/permissions/memory.js';
import { openStorage } from '../../../src/server/first-start.js';
import type { Storage } from '../../../src/db/storage.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';
import { createGroupMemory } from '../../../src/modules/groups/memory.js';
import { ROWS_KEPT_MS } from '../../../src/db/tenant-memory.js';

/**
 * The role memory keeps a caller's memberships between requests. A changed permission acts
 * within a second; this process's own writes act at once.
 */
describe('role memory', () => {
  let t: TestApp;
  /** The same database opened a second time: another instance, or the CLI. */
  let otherProcess: Storage;
  let root: number;
  let clock = 0;

  beforeAll(async () => {
    t = await buildTestApp();
    otherProcess = await openStorage(t.config);
    root = await t.rootGroupId('demo');
  });
  afterAll(async () => {
    await otherProcess.close();
    await t.close();
  });

  const memoryOf = (storage: Storage) => createRoleMemory({ writes: (tenant) => storage.invalidations.writes(tenant), now: () => clock });
  const grantElsewhere = async (personId: number) => {
    const now = toDbTimestamp(new Date());
    await otherProcess
      .tenantDb('demo')
      .insertInto('memberships')
      .values({ person_id: personId, group_id: root, role_type: 'leader', label: null, start_on: '2000-01-01', end_on: null, created_at: now, updated_at: now })
      .execute();
  };

  it('sees a change by another process once a second has passed since its read, not before', async () => {
    const memory = memoryOf(t.storage);
    const person = await t.addUser('demo', { username: 'remembered' });
    clock = 10_000;
    const factsNow = () => memory.factsOf('demo', t.storage.tenantDb('demo'), person.id);
    expect((await factsNow()).roles).toEqual([]);
    expect((await factsNow()).root.id).toBe(root);
    await grantElsewhere(person.id);
    clock += ROWS_KEPT_MS - 1;
    expect((await factsNow()).roles).toEqual([]);
    clock += 1;
    expect((await factsNow()).roles).toMatchObject([{ groupId: root, permission: 'write' }]);
  });

  it('sees a write of its own process at once, to any table of the tenant', async () => {
    const memory = memoryOf(t.storage);
    const person = await t.addUser('demo', { username: 'ownwrite' });
    clock = 50_000;
    const factsNow = () => memory.factsOf('demo', t.storage.tenantDb('demo'), person.id);
    expect((await factsNow()).roles).toEqual([]);
    await t.grant('demo', person.id, root, 'leader');
    expect((await factsNow()).roles).toMatchObject([{ groupId: root, permission: 'write' }]);
    // Ended through this process: gone on the next read, with the clock standing still.
    await t.storage.tenantDb('demo').updateTable('memberships').set({ end_on: '2000-01-02' }).where('person_id', '=', person.id).execute();
    expect((await factsNow()).roles).toMatchObject([{ endOn: '2000-01-02' }]);
  });

  it('notes the count of writes before it reads, so a read that a write overlapped is not kept', async () => {
    let writes = 0;
    const events: string[] = [];
    const memory = createRoleMemory({
      writes: () => {
        events.push('count');
        return writes;
      },
      now: () => clock,
    });
    const person = await t.addUser('demo', { username: 'overlapped' });
    clock = 90_000;
    const db = t.storage.tenantDb('demo');
    // A handle that counts a write finishing while the read is under way, as a write of this
    // process between the read's start and its answer would.
    const overlapped = db.withPlugin({
      transformQuery: ({ node }) => {
        events.push('query');
        writes++;
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    await memory.factsOf('demo', overlapped, person.id);
    expect(events.slice(0, 2)).toEqual(['count', 'query']);
    // The count moved during the read: the next request reads again, and that read is kept.
    const counted = db.withPlugin({
      transformQuery: ({ node }) => {
        events.push('query');
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    events.length = 0;
    await memory.factsOf('demo', counted, person.id);
    expect(events).toEqual(['count', 'query', 'query']);
    events.length = 0;
    await memory.factsOf('demo', counted, person.id);
    expect(events).toEqual(['count']);
  });

  it('does not keep a read that failed', async () => {
    const memory = memoryOf(t.storage);
    const person = await t.addUser('demo', { username: 'failedread' });
    clock = 100_000;
    const broken = t.storage.tenantDb('demo').withPlugin({
      transformQuery: () => {
        throw new Error('the database is away');
      },
      transformResult: async ({ result }) => result,
    });
    await expect(memory.factsOf('demo', broken, person.id)).rejects.toThrow('the database is away');
    expect((await memory.factsOf('demo', t.storage.tenantDb('demo'), person.id)).root.id).toBe(root);
  });

  it('is what the app uses: a membership ended through the API stops acting on the next request', async () => {
    const admin = await t.addUser('demo', { username: 'memoryadmin' });
    await t.grant('demo', admin.id, root, 'admin');
    const leader = await t.addUser('demo', { username: 'memoryleader' });
    const membership = await t.grant('demo', leader.id, root, 'leader');
    const [adminToken, leaderToken] = [await t.login('demo', 'memoryadmin', PASSWORD), await t.login('demo', 'memoryleader', PASSWORD)];
    const call = (token: string, method: 'POST' | 'PATCH', url: string, payload: object) =>
      t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` }, payload });
    // The leader's roles are read, and remembered, by this request.
    expect((await call(leaderToken, 'POST', '/groups', { parent_id: root, name: 'Before' })).statusCode).toBe(201);
    const ended = await call(adminToken, 'PATCH', `/memberships/${membership}`, { end_on: '2001-01-01' });
    expect(ended.statusCode).toBe(200);
    // No waiting: the write went through this process.
    expect((await call(leaderToken, 'POST', '/groups', { parent_id: root, name: 'After' })).statusCode).toBe(403);
  });

  it('keeps the callers of each tenant apart', async () => {
    const memory = memoryOf(t.storage);
    await t.addTenant('second');
    const there = await t.addUser('second', { username: 'secondadmin' });
    const secondRoot = await t.rootGroupId('second');
    clock = 120_000;
    await t.grant('second', there.id, secondRoot, 'admin');
    // The same id in both tenants: the first tenant's person of that id is someone else.
    const secondFacts = await memory.factsOf('second', t.storage.tenantDb('second'), there.id);
    const demoFacts = await memory.factsOf('demo', t.storage.tenantDb('demo'), there.id);
    expect(secondFacts).toMatchObject({ roles: [{ permission: 'admin', groupId: secondRoot }], root: { id: secondRoot } });
    expect(demoFacts.roles.map((role) => role.permission)).not.toContain('admin');
    expect(demoFacts.root.id).toBe(root);
  });

  it('keeps a group row for a second, forgets it on a write of its own, and never keeps a group not found', async () => {
    const { groupOf } = createGroupMemory({ writes: (tenant) => t.storage.invalidations.writes(tenant), now: () => clock });
    const db = t.storage.tenantDb('demo');
    const now = toDbTimestamp(new Date());
    const addGroup = async (name: string, storage: Storage, id?: number) =>
      Number(
        (
          await storage
            .tenantDb('demo')
            .insertInto('groups')
            .values({ ...(id === undefined ? {} : { id }), parent_id: root, name, name_key: name.toLowerCase(), kind: '', description: null, path: '/', created_at: now, updated_at: now })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id,
      );
    clock = 200_000;
    const troop = await addGroup('Remembered troop', t.storage);
    // Renamed by another process: seen once a second has passed since the read. Measured with a
    // memory whose process writes nothing meanwhile: the test app's own background writes (a token's
    // last use, the workers) would forget the row early, as they should, and hide the second.
    const { groupOf: quietGroupOf } = createGroupMemory({ writes: () => 0, now: () => clock });
    expect((await quietGroupOf('demo', db, troop))?.name).toBe('Remembered troop');
    await otherProcess.tenantDb('demo').updateTable('groups').set({ name: 'Renamed' }).where('id', '=', troop).execute();
    clock += ROWS_KEPT_MS - 1;
    expect((await quietGroupOf('demo', db, troop))?.name).toBe('Remembered troop');
    clock += 1;
    expect((await quietGroupOf('demo', db, troop))?.name).toBe('Renamed');
    expect((await groupOf('demo', db, troop))?.name).toBe('Renamed');
    // Renamed through this process: seen at once.
    await db.updateTable('groups').set({ name: 'Renamed here' }).where('id', '=', troop).execute();
    expect((await groupOf('demo', db, troop))?.name).toBe('Renamed here');
    // A group not found is asked again: created by another process, it is found at once.
    const missing = troop + 1000;
    expect(await groupOf('demo', db, missing)).toBeUndefined();
    expect(await addGroup('Created elsewhere', otherProcess, missing)).toBe(missing);
    expect((await groupOf('demo', db, missing))?.name).toBe('Created elsewhere');
  });
});
