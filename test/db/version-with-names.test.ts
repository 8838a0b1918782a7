import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tenantSchema } from '../../src/db/postgres.js';
import { createPersonJsonMemory } from '../../src/modules/people/json-memory.js';
import { PERSON_REF_COLUMNS, type PersonRef } from '../../src/modules/people/queries.js';
import { sortKey } from '../../src/lib/sort-key.js';
import { buildTestApp, hostOf, JSON_HEADERS, type TestApp } from '../helpers/app.js';
import { regionWithMembers } from '../helpers/region.js';

/**
 * Migration move-version-with-names: a rename made with SQL behind the service's back moves the
 * person's version, so that nothing kept for the old names (JSON, a page cursor's names) is used.
 */
describe("a person's version moves with their names", () => {
  let t: TestApp;
  let token: string;
  let region: number;
  let ids: Record<string, number>;

  const call = (method: 'GET' | 'PATCH', url: string, payload?: object) =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  const db = () => t.storage.tenantDb('demo');
  /**
   * `set` (column = value, ...) on a person, with SQL on a connection of its own that no storage
   * watches: the change is announced in the outbox, but relayed only by the tenant's next write.
   */
  const updateBehindTheService = async (id: number, set: Record<string, string | number>) => {
    const columns = Object.keys(set);
    const values = Object.values(set);
    if (t.config.databaseUrl) {
      const client = new pg.Client({ connectionString: t.config.databaseUrl });
      await client.connect();
      const assignments = columns.map((column, i) => `${column} = $${i + 1}`).join(', ');
      await client.query(`update "${tenantSchema('demo')}".users set ${assignments} where id = $${columns.length + 1}`, [...values, id]);
      await client.end();
    } else {
      const file = new BetterSqlite3(join(t.config.dataDir, 'tenants', 'demo.sqlite'));
      file.prepare(`update users set ${columns.map((column) => `${column} = ?`).join(', ')} where id = ?`).run(...values, id);
      file.close();
    }
  };
  const versionOf = async (id: number) => Number((await db().selectFrom('users').select('version').where('id', '=', id).executeTakeFirstOrThrow()).version);

  beforeEach(async () => {
    t = await buildTestApp();
    ({ token, region, ids } = await regionWithMembers(t, ['Aebi', 'Brun', 'Cadonau', 'Derungs']));
  });
  afterEach(() => t.close());

  it('moves by one for a rename in SQL that leaves the version, and not for other columns or a version set with it', async () => {
    const brun = ids.Brun!;
    const before = await versionOf(brun);
    await updateBehindTheService(brun, { lastname: 'Zahner', lastname_key: sortKey('Zahner') });
    expect(await versionOf(brun)).toBe(before + 1);
    await updateBehindTheService(brun, { firstname: 'Kai' });
    expect(await versionOf(brun)).toBe(before + 2);
    await updateBehindTheService(brun, { city: 'Chur' });
    expect(await versionOf(brun)).toBe(before + 2);
    // The same names written again: no rename.
    await updateBehindTheService(brun, { lastname: 'Zahner' });
    expect(await versionOf(brun)).toBe(before + 2);
    await updateBehindTheService(brun, { lastname: 'Brun', lastname_key: sortKey('Brun'), version: before + 10 });
    expect(await versionOf(brun)).toBe(before + 10);
  });

  it('moves once for a rename through the service', async () => {
    const before = await versionOf(ids.Cadonau!);
    const renamed = await call('PATCH', `/people/${ids.Cadonau}`, { lastname: 'Caflisch' });
    expect(renamed.statusCode).toBe(200);
    expect(await versionOf(ids.Cadonau!)).toBe(before + 1);
    expect(renamed.headers.etag).toBe(`"${before + 1}"`);
  });

  it('never gives the names kept for the old version once a rename in SQL moved it, whatever the change feed has relayed', async () => {
    // A memory told of no change at all: only the version keeps it right.
    const memory = createPersonJsonMemory({ isCurrent: () => true });
    const refOf = async (id: number): Promise<PersonRef> => (await db().selectFrom('users').select(PERSON_REF_COLUMNS).where('id', '=', id).executeTakeFirstOrThrow()) as PersonRef;
    const kept = await memory.jsonOf('demo', db(), [await refOf(ids.Derungs!)]);
    expect(kept![0]!.names[2]).toBe('Derungs');
    await updateBehindTheService(ids.Derungs!, { lastname: 'Bach', lastname_key: sortKey('Bach') });
    const after = await memory.jsonOf('demo', db(), [await refOf(ids.Derungs!)]);
    expect(after![0]!.names).toEqual([sortKey('Bach'), sortKey('Kim'), 'Bach', 'Kim']);
    expect(JSON.parse(after![0]!.json).lastname).toBe('Bach');
  });

  it('shows a rename in SQL on the next page at once, in its place, with pages that neither skip nor repeat', async () => {
    const walk = async (limit: number) => {
      const names: string[] = [];
      let url = `/people?group_id=${region}&below=true&limit=${limit}`;
      for (let pages = 0; pages < 10; pages++) {
        const answer = await call('GET', url);
        expect(answer.statusCode).toBe(200);
        const { people, next_cursor } = answer.json().data as { people: { lastname: string }[]; next_cursor: string | null };
        names.push(...people.map((person) => person.lastname));
        if (next_cursor === null) return names;
        url = `/people?group_id=${region}&below=true&limit=${limit}&cursor=${encodeURIComponent(next_cursor)}`;
      }
      throw new Error('the pages did not end');
    };
    // Everyone's JSON and names kept now.
    expect(await walk(2)).toEqual(['Aebi', 'Brun', 'Cadonau', 'Derungs']);
    // Derungs becomes Bach in SQL, and no write of the service follows: now the last of the first
    // page, whose cursor is made of the names kept for the version the page reads.
    await updateBehindTheService(ids.Derungs!, { lastname: 'Bach', lastname_key: sortKey('Bach') });
    expect(await walk(2)).toEqual(['Aebi', 'Bach', 'Brun', 'Cadonau']);
  });
});
