import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSqliteStorage } from '../../src/db/sqlite.js';
import type { Storage } from '../../src/db/storage.js';
import { createTenant, migrateAll } from '../../src/modules/tenants/rules.js';
import { createUser } from '../../src/modules/users/rules.js';
import { findUserByUsername } from '../../src/modules/users/queries.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { transact } from '../../src/recording/recorder.js';

/** Files under `dir` this process holds open right now (Linux). */
const openFilesUnder = (dir: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
    } catch {
      return false;
    }
  }).length;

describe('SQLite storage', () => {
  let dataDir: string;
  let storage: Storage;
  afterEach(async () => {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps at most tenantCacheSize tenant databases open, reopening the others when needed', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-sqlite-'));
    storage = createSqliteStorage({ dataDir, tenantCacheSize: 2 });
    await migrateAll(storage);
    const slugs = ['t1', 't2', 't3', 't4', 't5', 't6'];
    for (const slug of slugs) {
      await createTenant(storage, slug);
      await createUser(storage.tenantDb(slug), {
        username: `user-${slug}`, email: `${slug}@example.com`, firstname: 'A', lastname: 'B', password: 'password1',
      });
    }
    for (let round = 0; round < 3; round++) {
      for (const slug of slugs) {
        const user = await findUserByUsername(storage.tenantDb(slug), `user-${slug}`);
        expect(user?.username).toBe(`user-${slug}`);
      }
    }
    const tenantDir = join(dataDir, 'tenants');
    const open = openFilesUnder(tenantDir);
    // Each open database holds its file, its WAL and its shared-memory index: two tenants' worth at most.
    expect(open).toBeGreaterThan(0);
    expect(open).toBeLessThanOrEqual(2 * 3);
    // The two used last are the open ones (last_used_at writes wait for that, see last-use.ts).
    expect(slugs.filter((slug) => storage.isTenantOpen(slug))).toEqual(['t5', 't6']);
    expect(storage.isTenantOpen('unknown')).toBe(false);
  });

  it('lets a transaction finish on a tenant pushed out of the open set meanwhile', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-sqlite-'));
    storage = createSqliteStorage({ dataDir, tenantCacheSize: 1 });
    await migrateAll(storage);
    for (const slug of ['t1', 't2', 't3']) await createTenant(storage, slug);
    const base = { firstname: 'A', lastname: 'B', password: 'password1' };
    await transact(storage.tenantDb('t1'), null, async (trx) => {
      await createUser(trx, { ...base, username: 'first', email: 'first@example.com' });
      // Other tenants push t1 out of the open set while its transaction is under way.
      await findUserByUsername(storage.tenantDb('t2'), 'nobody');
      await findUserByUsername(storage.tenantDb('t3'), 'nobody');
      // Still open for the transaction, but about to close: not open for writes that can wait.
      expect(storage.isTenantOpen('t1')).toBe(false);
      await sleep(10);
      await createUser(trx, { ...base, username: 'second', email: 'second@example.com' });
    });
    // The file, its WAL and its shared-memory index all start with this path.
    const t1Files = () => openFilesUnder(join(dataDir, 'tenants', 't1.sqlite'));
    const users = await storage.tenantDb('t1').selectFrom('users').select('username').orderBy('id').execute();
    expect(users.map((u) => u.username)).toEqual(['first', 'second']);
    expect(t1Files()).toBeGreaterThan(0);
    await findUserByUsername(storage.tenantDb('t2'), 'nobody');
    expect(t1Files()).toBe(0);
  });

  it('gives an idle tenant file its page cache back, then closes it; the next query reopens it', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-sqlite-'));
    storage = createSqliteStorage({ dataDir, tenantCacheSize: 10, idleSweepMs: 5 });
    await migrateAll(storage);
    await createTenant(storage, 't1');
    const shrinks = vi.spyOn(BetterSqlite3.prototype, 'pragma');
    const t1Files = () => openFilesUnder(join(dataDir, 'tenants', 't1.sqlite'));
    await createUser(storage.tenantDb('t1'), { username: 'idle', email: 'idle@example.com', firstname: 'A', lastname: 'B', password: 'password1' });
    expect(t1Files()).toBeGreaterThan(0);
    // One quiet sweep: the page cache goes, the file stays open and answers.
    await waitFor(() => shrinks.mock.calls.some(([sql]) => sql === 'shrink_memory'), 2000, 2);
    expect(t1Files()).toBeGreaterThan(0);
    // A quiet minute's worth of sweeps: closed.
    await waitFor(() => t1Files() === 0, 5000);
    expect((await findUserByUsername(storage.tenantDb('t1'), 'idle'))?.username).toBe('idle');
    expect(t1Files()).toBeGreaterThan(0);
    shrinks.mockRestore();
  });

  it('does not close a tenant file while a transaction holds it, however long it idles', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-sqlite-'));
    storage = createSqliteStorage({ dataDir, tenantCacheSize: 10, idleSweepMs: 2 });
    await migrateAll(storage);
    await createTenant(storage, 't1');
    const base = { firstname: 'A', lastname: 'B', password: 'password1' };
    await transact(storage.tenantDb('t1'), null, async (trx) => {
      await createUser(trx, { ...base, username: 'first', email: 'first@example.com' });
      await sleep(400); // well over 60 sweeps
      await createUser(trx, { ...base, username: 'second', email: 'second@example.com' });
    });
    const users = await storage.tenantDb('t1').selectFrom('users').select('username').orderBy('id').execute();
    expect(users.map((u) => u.username)).toEqual(['first', 'second']);
  });

  it('creates each tenant in its own file, migrated, and lists it in the registry', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-sqlite-'));
    storage = createSqliteStorage({ dataDir, tenantCacheSize: 10 });
    await migrateAll(storage);
    await createTenant(storage, 'acme', 'Acme Club');
    expect(readdirSync(join(dataDir, 'tenants'))).toContain('acme.sqlite');
    const tables = await storage.tenantDb('acme').introspection.getTables();
    expect(tables.map((table) => table.name).sort()).toEqual(['account_tokens', 'cache_changes', 'calendar_feeds', 'change_records', 'change_sequence', 'email_status', 'events', 'groups', 'guardianships', 'idempotency_keys', 'mails', 'member_order', 'memberships', 'message_recipients', 'messages', 'participations', 'personal_access_tokens', 'role_types', 'users', 'webhook_deliveries', 'webhooks']);
    const tenants = await storage.registry.selectFrom('tenants').select(['slug', 'name']).execute();
    expect(tenants).toEqual([{ slug: 'acme', name: 'Acme Club' }]);
    // Migrating again changes nothing.
    expect(await migrateAll(storage)).toBe(1);
  });

  it('enforces case-insensitive unique usernames and e-mails per tenant', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-sqlite-'));
    storage = createSqliteStorage({ dataDir, tenantCacheSize: 10 });
    await migrateAll(storage);
    await createTenant(storage, 'acme');
    const db = storage.tenantDb('acme');
    const base = { firstname: 'A', lastname: 'B', password: 'password1' };
    await createUser(db, { ...base, username: 'Alice', email: 'alice@example.com' });
    await expect(createUser(db, { ...base, username: 'ALICE', email: 'other@example.com' })).rejects.toThrow(
      'The username has already been taken.',
    );
    await expect(createUser(db, { ...base, username: 'bob', email: 'ALICE@example.com' })).rejects.toThrow(
      'The email has already been taken.',
    );
    // The database itself refuses, even past the application's check.
    const row = await findUserByUsername(db, 'alice');
    const { id: _id, ...copy } = row!;
    await expect(db.insertInto('users').values({ ...copy, username: 'aLiCe', email: 'x@example.com' }).execute()).rejects.toThrow(
      /UNIQUE/,
    );
  });

  it("reads through Kysely the rows better-sqlite3 itself gives: every column, value and type, in order", async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-sqlite-'));
    storage = createSqliteStorage({ dataDir, tenantCacheSize: 10 });
    await migrateAll(storage);
    await createTenant(storage, 'acme');
    const db = storage.tenantDb('acme');
    await createUser(db, { username: 'alice', email: 'alice@example.com', firstname: 'Alice', lastname: 'Ä', password: 'password1', zip: null, can_swimm: true });
    await createUser(db, { username: 'bob', email: 'bob@example.com', firstname: 'Bob', lastname: 'B', password: 'password1', gender_id: 2 });
    const own = new BetterSqlite3(join(dataDir, 'tenants', 'acme.sqlite'), { readonly: true });
    try {
      const queries = [
        'select * from users order by id',
        // Repeated names: the later column wins, in both.
        'select u.id, u.firstname as name, u.lastname as name, count(*) over () as "count(*)", 1.5 as half, x\'00ff\' as bytes, null as empty from users u order by id',
      ];
      for (const query of queries) {
        const ours = (await sql.raw(query).execute(db)).rows;
        const theirs = own.prepare(query).all();
        expect(ours).toEqual(theirs);
        expect(ours.map((row) => Object.keys(row as object))).toEqual(theirs.map((row) => Object.keys(row as object)));
      }
      // A column named __proto__ is a property like any other (better-sqlite3 would set the prototype).
      const [odd] = (await sql.raw('select id as "__proto__", username from users order by id').execute(db)).rows as object[];
      expect(Object.keys(odd!)).toEqual(['__proto__', 'username']);
      expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
      // A table changed under a kept statement by another process (a migration): rows follow the
      // new columns, also when there are as many of them as before.
      const other = new BetterSqlite3(join(dataDir, 'tenants', 'acme.sqlite'));
      const read = async () => (await sql.raw('select * from scratch').execute(db)).rows;
      try {
        other.exec('create table scratch (a, b, c); insert into scratch values (1, 2, 3)');
        expect(await read()).toEqual([{ a: 1, b: 2, c: 3 }]);
        other.exec('alter table scratch rename column b to bb');
        expect(await read()).toEqual([{ a: 1, bb: 2, c: 3 }]);
        other.exec('alter table scratch drop column a; alter table scratch add column d default 4');
        expect(await read()).toEqual([{ bb: 2, c: 3, d: 4 }]);
        other.exec('alter table scratch add column e default 5');
        expect(await read()).toEqual([{ bb: 2, c: 3, d: 4, e: 5 }]);
      } finally {
        other.close();
      }
      // Rows streamed (the CSV export) are built the same way.
      const streamed = [];
      for await (const row of db.selectFrom('users').selectAll().orderBy('id').stream()) streamed.push(row);
      expect(streamed).toEqual(own.prepare('select * from users order by id').all());
    } finally {
      own.close();
    }
  });
});
