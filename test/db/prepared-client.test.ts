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

  it(`prepares at most ${PREPARED_PER_CONNECTION} statements on one connection`, async () => {
    for (let i = 0; i < PREPARED_PER_CONNECTION + 20; i++) {
      const text = `select id + ${i} as n from items where id = $1`;
      await client.query(text, [1]);
      expect((await client.query(text, [1])).rows).toEqual([{ n: 1 + i }]);
    }
    expect(await preparedOn(client)).toHaveLength(PREPARED_PER_CONNECTION);
  });
});
