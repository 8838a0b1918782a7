import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { createStorage } from '../../../src/db/index.js';
import type { Storage } from '../../../src/db/storage.js';
import { createPersonJsonMemory } from '../../../src/modules/people/json-memory.js';
import { PERSON_REF_COLUMNS, type PersonRef } from '../../../src/modules/people/queries.js';
import { PersonSchema } from '../../../src/modules/people/schemas.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';
import { sleep } from '../../helpers/wait.js';
import type { UserRow } from '../../../src/db/types.js';

/**
 * GET /people writes each person's JSON once per version and keeps it (people/json-memory.ts).
 * These show that a page is byte for byte what the response schema writes, and that no change,
 * on this instance or another, leaves an old person on a page.
 */
describe('pages of people from kept JSON', () => {
  let t: TestApp;
  let storageB: Storage;
  let b: FastifyInstance;
  let token: string;
  let root: number;
  let people: number[];

  const get = (app: FastifyInstance, url: string) =>
    app.inject({ method: 'GET', url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` } });
  const write = (method: 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  /** Every page of the root's subtree (the kept-order plan), 2 a page. */
  const everyone = async (app: FastifyInstance = t.app) => {
    const listed: Record<string, unknown>[] = [];
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const answer = await get(app, `/people?group_id=${root}&below=true&limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      // The bytes are those of the parsed answer written again: no stray formatting.
      expect(answer.body).toBe(JSON.stringify(answer.json()));
      const { data } = answer.json();
      listed.push(...data.people);
      cursor = data.next_cursor;
    }
    return listed;
  };
  const cityOf = async (id: number, app?: FastifyInstance) => (await everyone(app)).find((person) => person.id === id)?.city;

  beforeEach(async () => {
    t = await buildTestApp();
    root = await t.rootGroupId('demo');
    const admin = await t.addUser('demo', { username: 'admin', lastname: 'Admin' });
    await t.grant('demo', admin.id, root, 'admin');
    token = await t.login('demo', 'admin', PASSWORD);
    people = [admin.id];
    for (const [username, lastname, city] of [
      ['ossler', 'Ößler', 'Zürich "Nord"'],
      ['slash', 'Back\\slash', 'line\nbreak'],
      ['emoji', 'Emoji 😀', null],
      ['plain', 'Plain', 'Bern'],
    ] as const) {
      const person = await t.addUser('demo', { username, lastname, city });
      await t.grant('demo', person.id, root, 'member');
      people.push(person.id);
    }
    storageB = await createStorage(t.config);
    b = await buildApp(t.config, { storage: storageB, logger: pino({ level: 'silent' }) });
    await b.ready();
  });
  afterEach(async () => {
    await b.close();
    await storageB.close();
    await t.close();
  });

  it('writes each person as GET /people/{id} does, field for field and byte for byte, read whole or kept', async () => {
    for (const round of ['read whole', 'kept']) {
      const listed = await everyone();
      expect(listed.map((person) => person.id).sort(), round).toEqual([...people].sort());
      for (const person of listed) {
        expect(Object.keys(person)).toEqual(Object.keys(PersonSchema.properties));
        const single = await get(t.app, `/people/${person.id}`);
        expect(JSON.stringify(person), round).toBe(JSON.stringify(single.json().data.person));
      }
    }
  });

  it('shows a change through the service at once on this instance, and on another by the version it reads', async () => {
    const [, ossler] = people as [number, number];
    expect(await cityOf(ossler)).toBe('Zürich "Nord"');
    expect(await cityOf(ossler, b)).toBe('Zürich "Nord"');
    expect((await write('PATCH', `/people/${ossler}`, { city: 'Basel' })).statusCode).toBe(200);
    expect(await cityOf(ossler)).toBe('Basel');
    // B has not heard of the change yet (its feed is read every 250 ms): the version tells it.
    expect(await cityOf(ossler, b)).toBe('Basel');
  });

  it('leaves an erased person out on every instance', async () => {
    const [, , slash] = people as [number, number, number];
    await everyone(b);
    expect((await write('DELETE', `/people/${slash}`)).statusCode).toBe(204);
    expect((await everyone()).map((person) => person.id)).not.toContain(slash);
    expect((await everyone(b)).map((person) => person.id)).not.toContain(slash);
  });

  it('forgets a row changed with SQL that leaves the version as it was: at once where it was written, within a second elsewhere', async () => {
    const [, , , emoji, plain] = people as [number, number, number, number, number];
    expect(await cityOf(emoji)).toBe(null);
    expect(await cityOf(plain, b)).toBe('Bern');
    // Through this instance's handle, as a script in this process would.
    await t.storage.tenantDb('demo').updateTable('users').set({ city: 'Thun' }).where('id', '=', emoji).execute();
    expect(await cityOf(emoji)).toBe('Thun');
    // Through instance B's own handle: A hears of it through the feed of cache changes.
    expect(await cityOf(plain)).toBe('Bern');
    await storageB.tenantDb('demo').updateTable('users').set({ city: 'Chur' }).where('id', '=', plain).execute();
    const started = performance.now();
    while ((await cityOf(plain)) !== 'Chur') {
      expect(performance.now() - started).toBeLessThan(1000);
      await sleep(20);
    }
  });
});

describe("the memory of people's JSON", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  const refOf = (row: UserRow): PersonRef => Object.fromEntries(PERSON_REF_COLUMNS.map((column) => [column, row[column]])) as PersonRef;

  it('answers nothing when someone on the page changed or went after the page was read, so that the page is read again whole', async () => {
    const db = t.storage.tenantDb('demo');
    const a = await t.addUser('demo', { username: 'a', city: 'Aarau' });
    const b = await t.addUser('demo', { username: 'b' });
    const memory = createPersonJsonMemory({ isCurrent: () => true });
    const page = await memory.jsonOf('demo', db, [refOf(a), refOf(b)]);
    expect(page?.map(({ json }) => JSON.parse(json).id)).toEqual([a.id, b.id]);
    // Both kept now; a page whose query found a version the row no longer has, or someone since erased:
    await db.updateTable('users').set({ city: 'Baden', version: a.version + 1 }).where('id', '=', a.id).execute();
    expect(await memory.jsonOf('demo', db, [{ ...refOf(b) }, { ...refOf(a), version: a.version + 2 }])).toBeUndefined();
    expect(await memory.jsonOf('demo', db, [refOf(b), { ...refOf(b), id: b.id + 100 }])).toBeUndefined();
  });

  it('gives the names of the version the page read, read or kept, which the cursor of a name-sorted page is made of', async () => {
    const db = t.storage.tenantDb('demo');
    const a = await t.addUser('demo', { username: 'a', firstname: 'Ärni', lastname: 'Zürcher' });
    const memory = createPersonJsonMemory({ isCurrent: () => true });
    const namesOf = async (row: UserRow) => (await memory.jsonOf('demo', db, [refOf(row)]))![0]!.names;
    expect(await namesOf(a)).toEqual([a.lastname_key, a.firstname_key, 'Zürcher', 'Ärni']);
    expect(await namesOf(a)).toEqual([a.lastname_key, a.firstname_key, 'Zürcher', 'Ärni']);
    // Renamed (a new version): the new names, not the kept ones.
    await db.updateTable('users').set({ lastname: 'Aebi', lastname_key: 'aebi', version: a.version + 1 }).where('id', '=', a.id).execute();
    const renamed = await db.selectFrom('users').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    expect(await namesOf(renamed)).toEqual(['aebi', a.firstname_key, 'Aebi', 'Ärni']);
  });

  it('does not take kept JSON for a person of the same id and version but another updated_at (a database restored under it)', async () => {
    const db = t.storage.tenantDb('demo');
    const a = await t.addUser('demo', { username: 'a', city: 'Aarau' });
    // Not told of changes: only what it compares keeps it right here.
    const memory = createPersonJsonMemory({ isCurrent: () => true });
    expect(JSON.parse((await memory.jsonOf('demo', db, [refOf(a)]))![0]!.json).city).toBe('Aarau');
    await db.updateTable('users').set({ city: 'Restored', updated_at: '2030-01-01 00:00:00.000000' }).where('id', '=', a.id).execute();
    const restored = await db.selectFrom('users').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    expect(restored.version).toBe(a.version);
    expect(JSON.parse((await memory.jsonOf('demo', db, [refOf(restored)]))![0]!.json).city).toBe('Restored');
  });

  it('keeps the people of two tenants apart when id, version and updated_at are the same, and ids outside 0 to 2^32 apart', async () => {
    await t.addTenant('other');
    const db = t.storage.tenantDb('demo');
    const otherDb = t.storage.tenantDb('other');
    const here = await t.addUser('demo', { username: 'here', city: 'Aarau' });
    const there = await t.addUser('other', { username: 'there', city: 'Chur' });
    const big = 2 ** 32 + here.id;
    const same = { version: 7, updated_at: '2030-01-01 00:00:00.000000' };
    await otherDb.updateTable('users').set({ id: here.id, ...same }).where('id', '=', there.id).execute();
    await db.updateTable('users').set(same).where('id', '=', here.id).execute();
    // Ids written behind the service's back: -1 in the second tenant and 2^32 - 1 in the first
    // would share a key if negative ids were numbered too.
    const copyOf = (id: number, username: string, city: string) => ({ ...(({ id: _id, ...rest }) => rest)(here), ...same, id, username, email: null, city });
    await db.insertInto('users').values([copyOf(big, 'big', 'Basel'), copyOf(2 ** 32 - 1, 'last', 'Thun')]).execute();
    await otherDb.insertInto('users').values(copyOf(-1, 'negative', 'Genf')).execute();
    const rowOf = (tenantDb: typeof db, id: number) => tenantDb.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const memory = createPersonJsonMemory({ isCurrent: () => true });
    const cities = async (tenant: string, tenantDb: typeof db, id: number) =>
      (await memory.jsonOf(tenant, tenantDb, [refOf(await rowOf(tenantDb, id))]))!.map(({ json }) => JSON.parse(json).city);
    // Each read twice: the second comes from what the first kept.
    for (let round = 0; round < 2; round++) {
      expect(await cities('demo', db, here.id)).toEqual(['Aarau']);
      expect(await cities('other', otherDb, here.id)).toEqual(['Chur']);
      expect(await cities('demo', db, big)).toEqual(['Basel']);
      expect(await cities('demo', db, 2 ** 32 - 1)).toEqual(['Thun']);
      expect(await cities('other', otherDb, -1)).toEqual(['Genf']);
    }
    // Forgetting one tenant's person leaves the other's; a change read afterwards is shown.
    await otherDb.updateTable('users').set({ city: 'Davos' }).where('id', '=', here.id).execute();
    memory.forget({ tenant: 'other', userId: here.id, tokenId: null });
    expect(await cities('other', otherDb, here.id)).toEqual(['Davos']);
    expect(await cities('demo', db, here.id)).toEqual(['Aarau']);
  });
});
