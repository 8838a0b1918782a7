import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageUnavailable } from '../../src/db/errors.js';
import { PREPARED_PER_CONNECTION, PreparingClient } from '../../src/db/prepared-client.js';
import { createTestDatabase, DATABASE_URL } from '../helpers/services.js';

/** The statements PostgreSQL keeps prepared for this connection. */
const preparedOn = async (client: pg.Client) =>
  (await client.query<{ statement: string }>('select statement from pg_prepared_statements')).rows.map((row) => row.statement);

describe.runIf(DATABASE_URL)('statements prepared by the client (PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: PreparingClient;
  beforeEach(async () => {
    database = await createTestDatabase();
    client = new PreparingClient({ connectionString: database.url });
    await client.connect();
    await client.query('create table items (id integer primary key, name text)');
    await client.query("insert into items values (1, 'one'), (2, 'two')");
  });
  afterEach(async () => {
    await client.end();
    await database.drop();
  });

  it('prepares a text with values from its second use on, and answers as before', async () => {
    const text = 'select * from items where id = $1';
    expect((await client.query(text, [1])).rows).toEqual([{ id: 1, name: 'one' }]);
    expect(await preparedOn(client)).toEqual([]);
    expect((await client.query(text, [2])).rows).toEqual([{ id: 2, name: 'two' }]);
    expect(await preparedOn(client)).toEqual([text]);
    expect((await client.query(text, [1])).rows).toEqual([{ id: 1, name: 'one' }]);
    expect(await preparedOn(client)).toEqual([text]);
  });

  it('leaves statements without values unprepared', async () => {
    for (let i = 0; i < 3; i++) await client.query('select count(*)::int as n from items', []);
    expect(await preparedOn(client)).toEqual([]);
  });

  it('goes on without its prepared statement when a table it reads changed shape', async () => {
    const text = 'select * from items where id = $1';
    await client.query(text, [1]);
    await client.query(text, [1]);
    await client.query('alter table items add column extra text');
    expect((await client.query(text, [1])).rows).toEqual([{ id: 1, name: 'one', extra: null }]);
    expect((await client.query(text, [2])).rows).toEqual([{ id: 2, name: 'two', extra: null }]);
    // Prepared again, once, under a new name.
    expect(await preparedOn(client)).toEqual([text]);
  });

  it('fails a transaction that such a statement aborted as storage refusing for now (503), and works on the next try', async () => {
    const text = 'select * from items where id = $1';
    await client.query(text, [1]);
    await client.query(text, [1]);
    await client.query('alter table items add column extra text');
    await client.query('begin');
    const failure = await client.query(text, [1]).then(
      () => null,
      (err: unknown) => err,
    );
    await client.query('rollback');
    expect((failure as { code?: string }).code).toBe('0A000');
    expect(isStorageUnavailable(failure)).toBe(true);
    await client.query('begin');
    expect((await client.query(text, [2])).rows).toEqual([{ id: 2, name: 'two', extra: null }]);
    await client.query('commit');
  });

  it(`keeps at most ${PREPARED_PER_CONNECTION} statements on one connection, deallocating the one used least lately`, async () => {
    const textOf = (i: number) => `select id + ${i} as n from items where id = $1`;
    for (let i = 0; i < PREPARED_PER_CONNECTION + 20; i++) {
      await client.query(textOf(i), [1]);
      expect((await client.query(textOf(i), [1])).rows).toEqual([{ n: 1 + i }]);
      // The first one stays in use, so it is never the one to go.
      expect((await client.query(textOf(0), [2])).rows).toEqual([{ n: 2 }]);
    }
    const prepared = await preparedOn(client);
    expect(prepared).toHaveLength(PREPARED_PER_CONNECTION);
    expect(prepared).toContain(textOf(0));
    expect(prepared).toContain(textOf(PREPARED_PER_CONNECTION + 19));
    expect(prepared).not.toContain(textOf(1));
    // A deallocated statement is prepared again when it comes back.
    expect((await client.query(textOf(1), [2])).rows).toEqual([{ n: 3 }]);
    expect(await preparedOn(client)).toContain(textOf(1));
  });

  it('never prepares a very long text', async () => {
    const text = `select id from items where id = $1 and name <> '${'x'.repeat(9000)}'`;
    for (let i = 0; i < 3; i++) expect((await client.query(text, [1])).rows).toEqual([{ id: 1 }]);
    expect(await preparedOn(client)).toEqual([]);
  });
});
