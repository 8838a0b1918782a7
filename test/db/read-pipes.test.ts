import pg from 'pg';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageUnavailable } from '../../src/db/errors.js';
import { createPostgresStorage } from '../../src/db/postgres.js';
import { isPlainRead, READ_PIPES } from '../../src/db/read-pipes.js';
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
    const long = sql`select pg_sleep(0.5)`.execute(db);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await backendOf();
    expect(Date.now() - started).toBeLessThan(400);
    await long;
    expect(READ_PIPES).toBeGreaterThan(1);
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

  it('ends its connections when the storage closes', async () => {
    const pid = await backendOf();
    const activeOf = async () => (await admin.query('select count(*)::int as n from pg_stat_activity where pid = $1', [pid])).rows[0].n as number;
    expect(await activeOf()).toBe(1);
    await storage.close();
    for (let i = 0; i < 50 && (await activeOf()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await activeOf()).toBe(0);
    await expect(backendOf()).rejects.toThrow(/closed/);
    // afterEach closes it again: closing twice is harmless.
  });
});
