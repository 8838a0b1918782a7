import pg from 'pg';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageUnavailable } from '../../src/db/errors.js';
import { createPostgresStorage } from '../../src/db/postgres.js';
import { isPlainRead, PIPE_DEPTH, READ_PIPES } from '../../src/db/read-pipes.js';
import type { Storage } from '../../src/db/storage.js';
import { createTenant, migrateAll } from '../../src/modules/tenants/rules.js';
import { createTestDatabase, DATABASE_URL } from '../helpers/services.js';

describe('which statements the read pipes take', () => {
  it('takes a SELECT without a locking clause, in any case and after white space', () => {
    expect(isPlainRead('select 1')).toBe(true);
    expect(isPlainRead('\n  SELECT "id" from "t"."users" where "id" = $1')).toBe(true);
  });

  it('leaves writes, transaction control, WITH and locking reads to the pool', () => {
    for (const text of [
      'insert into t values (1)',
      'update t set a = 1',
      'delete from t',
      'with x as (delete from t returning *) select * from x',
      'begin',
      'commit',
      'select * from t where id = $1 for update',
      'select * from t for no key update of t',
      'select * from t FOR SHARE',
      'select * from t for key share skip locked',
      'selection',
    ]) {
      expect(isPlainRead(text), text).toBe(false);
    }
  });
});

describe.runIf(DATABASE_URL)('reads through the read pipes (PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let storage: Storage;
  let admin: pg.Client;
  beforeEach(async () => {
    database = await createTestDatabase();
    storage = createPostgresStorage({ databaseUrl: database.url, poolSize: 4 });
    await migrateAll(storage);
    await createTenant(storage, 'acme');
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterEach(async () => {
    await admin.end();
    await storage.close();
    await database.drop();
  });

  const backendOf = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(storage.tenantDb('acme'))).rows[0]!.pid;

  it('sends many reads at once on one connection, not one each from the pool', async () => {
    const pids = new Set(await Promise.all(Array.from({ length: 40 }, backendOf)));
    expect(pids.size).toBe(1);
    // The pool's own connections are others.
    const pool = await storage.tenantDb('acme').transaction().execute((trx) => sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx));
    expect(pids.has(pool.rows[0]!.pid)).toBe(false);
  });

  it('reads a transaction\'s own writes inside it, and nothing of it from outside until it commits', async () => {
    const db = storage.tenantDb('acme');
    const countGroups = (on: typeof db) => on.selectFrom('groups').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    const before = Number((await countGroups(db)).n);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const written = new Promise<void>((resolve) => (inside = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await trx.insertInto('groups').values({ parent_id: null, name: 'Root', name_key: 'root', kind: 'root', description: null, path: '/x/', created_at: '2026-01-01 00:00:00', updated_at: '2026-01-01 00:00:00' }).execute();
      expect(Number((await countGroups(trx)).n)).toBe(before + 1);
      inside();
      await held;
    });
    await written;
    expect(Number((await countGroups(db)).n)).toBe(before);
    release();
    await transaction;
    expect(Number((await countGroups(db)).n)).toBe(before + 1);
  });

  it('keeps every statement after a BEGIN sent by hand on that connection (a lone write and its outbox read, watched-driver.ts)', async () => {
    const db = storage.tenantDb('acme');
    const seen = await db.connection().execute(async (connection) => {
      await sql`begin`.execute(connection);
      await sql`insert into tenant_acme.role_types (key, label, permission, scope, created_at, updated_at) values ('helper', 'Helper', 'read', 'group', '2026-01-01', '2026-01-01')`.execute(connection);
      const read = await connection.selectFrom('role_types').select('key').where('key', '=', 'helper').execute();
      await sql`rollback`.execute(connection);
      return read;
    });
    expect(seen).toEqual([{ key: 'helper' }]);
    expect(await db.selectFrom('role_types').select('key').where('key', '=', 'helper').execute()).toEqual([]);
  });

  it('sends a lone write and a locking read to the pool, so a lock wait holds up no read', async () => {
    const db = storage.tenantDb('acme');
    // Another session holds the tenant's root group.
    await admin.query('begin');
    await admin.query('select * from tenant_acme.groups for update');
    const lockedUpdate = db.updateTable('groups').set({ description: 'waited' }).execute();
    const lockedRead = db.selectFrom('groups').selectAll().forUpdate().execute();
    // Reads go on meanwhile.
    for (let i = 0; i < 5; i++) expect(await db.selectFrom('groups').select('name').execute()).toEqual([{ name: 'acme' }]);
    await admin.query('commit');
    await lockedUpdate;
    expect(await lockedRead).toHaveLength(1);
  });

  it('sends reads to another connection while a long one holds up the first', async () => {
    const db = storage.tenantDb('acme');
    const long = sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.5)`.execute(db);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    const meanwhile = await backendOf();
    expect(Date.now() - started).toBeLessThan(400);
    expect((await long).rows[0]!.pid).not.toBe(meanwhile);
  });

  it('sends reads to the pool when every pipe is full, and answers them all', async () => {
    const count = READ_PIPES * PIPE_DEPTH + 40;
    const pids = await Promise.all(Array.from({ length: count }, backendOf));
    const perBackend = new Map<number, number>();
    for (const pid of pids) perBackend.set(pid, (perBackend.get(pid) ?? 0) + 1);
    // Each pipe carried PIPE_DEPTH of them; the rest went to the pool's connections.
    expect([...perBackend.values()].filter((n) => n === PIPE_DEPTH)).toHaveLength(READ_PIPES);
    expect(perBackend.size).toBeGreaterThan(READ_PIPES);
  });

  it('gives up a read waiting behind a change of a table\'s shape after its lock timeout, as storage unavailable; other reads go on', async () => {
    const db = storage.tenantDb('acme');
    await admin.query('begin');
    await admin.query('alter table tenant_acme.groups add column extra text');
    const started = Date.now();
    const blocked = db.selectFrom('groups').select('name').execute().then(() => null, (err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await db.selectFrom('users').select('id').execute()).toEqual([]);
    const failure = await blocked;
    expect(Date.now() - started).toBeLessThan(3000);
    expect((failure as { code?: string }).code).toBe('55P03');
    expect(isStorageUnavailable(failure)).toBe(true);
    await admin.query('rollback');
    expect(await db.selectFrom('groups').select('name').execute()).toEqual([{ name: 'acme' }]);
  });

  it('opens its connection again after the server ended it: the reads in flight fail as storage unavailable, the next succeed', async () => {
    const pid = await backendOf();
    const inFlight = sql`select pg_sleep(0.5)`.execute(storage.tenantDb('acme'));
    const failed = inFlight.then(() => null, (err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await admin.query('select pg_terminate_backend($1)', [pid]);
    const failure = await failed;
    expect(String(failure)).toMatch(/terminat/i);
    expect(isStorageUnavailable(failure)).toBe(true);
    const next = await backendOf();
    expect(next).not.toBe(pid);
  });

  it('ends its connections when the storage closes, waiting a second at most for a read in flight', async () => {
    const pid = await backendOf();
    const activeOf = async () => (await admin.query('select count(*)::int as n from pg_stat_activity where pid = $1', [pid])).rows[0].n as number;
    expect(await activeOf()).toBe(1);
    const inFlight = sql`select pg_sleep(2)`.execute(storage.tenantDb('acme')).then(() => null, (err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await storage.close();
    expect(Date.now() - started).toBeLessThan(2500);
    expect(isStorageUnavailable(await inFlight)).toBe(true);
    // The server process notices the cut connection once its statement ends.
    for (let i = 0; i < 200 && (await activeOf()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await activeOf()).toBe(0);
    const late = await backendOf().then(() => null, (err: unknown) => err);
    expect(String(late)).toMatch(/closed/);
    expect(isStorageUnavailable(late)).toBe(true);
    // afterEach closes it again: closing twice is harmless.
  });
});
