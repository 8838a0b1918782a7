import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresStorage, REGISTRY_SCHEMA, tenantSchema } from '../../src/db/postgres.js';
import { READ_PIPES } from '../../src/db/read-pipes.js';
import type { Storage } from '../../src/db/storage.js';
import { findUserByUsername } from '../../src/modules/users/queries.js';
import { createTenant, migrateAll } from '../../src/modules/tenants/rules.js';
import { createUser } from '../../src/modules/users/rules.js';
import { createTestDatabase, DATABASE_URL } from '../helpers/services.js';

describe('tenantSchema', () => {
  it('maps a slug to tenant_<slug> with hyphens as underscores', () => {
    expect(tenantSchema('acme')).toBe('tenant_acme');
    expect(tenantSchema('my-club-2')).toBe('tenant_my_club_2');
  });

  it('keeps long slugs within 63 characters and apart', () => {
    const a = tenantSchema(`${'a'.repeat(60)}-x`);
    const b = tenantSchema(`${'a'.repeat(60)}-y`);
    expect(a.length).toBeLessThanOrEqual(63);
    expect(a).not.toBe(b);
  });
});

describe.runIf(DATABASE_URL)('PostgreSQL storage', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let storage: Storage;
  beforeEach(async () => {
    database = await createTestDatabase();
    storage = createPostgresStorage({ databaseUrl: database.url, poolSize: 3 });
    await migrateAll(storage);
  });
  afterEach(async () => {
    await storage.close();
    await database.drop();
  });

  const query = async (text: string) => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };

  it('keeps the registry in its own schema and each tenant in tenant_<slug>', async () => {
    await createTenant(storage, 'acme');
    await createTenant(storage, 'my-club');
    const tables = await query(
      `select table_schema || '.' || table_name as name from information_schema.tables
       where table_name in ('tenants', 'users', 'personal_access_tokens') order by 1`,
    );
    expect(tables.map((row) => row.name)).toEqual([
      `${REGISTRY_SCHEMA}.tenants`,
      'tenant_acme.personal_access_tokens',
      'tenant_acme.users',
      'tenant_my_club.personal_access_tokens',
      'tenant_my_club.users',
    ]);
  });

  it('qualifies every query with the schema instead of relying on search_path', async () => {
    await createTenant(storage, 'acme');
    // A decoy in the default schema: an unqualified query would find it.
    await query(`create table public.users (id int, username text)`);
    await query(`insert into public.users values (1, 'decoy')`);
    const db = storage.tenantDb('acme');
    expect(await findUserByUsername(db, 'decoy')).toBeUndefined();
    await createUser(db, { username: 'alice', email: 'a@example.com', firstname: 'A', lastname: 'B', password: 'password1' });
    expect((await findUserByUsername(db, 'ALICE'))?.username).toBe('alice');
    expect(await query(`select username from public.users`)).toEqual([{ username: 'decoy' }]);
  });

  it('serves many tenants through one bounded pool', async () => {
    const slugs = Array.from({ length: 12 }, (_, i) => `club-${i}`);
    for (const slug of slugs) await createTenant(storage, slug);
    await Promise.all(
      slugs.map((slug) =>
        createUser(storage.tenantDb(slug), {
          username: 'u', email: `${slug}@example.com`, firstname: 'A', lastname: 'B', password: 'password1',
        }),
      ),
    );
    const [row] = await query(
      `select count(*)::int as connections from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
    );
    // The pool's 3 and the read pipes' connections (read-pipes.ts), however many tenants: a pipe
    // held up under load for a few milliseconds sends the next reads to another pipe.
    expect(row.connections).toBeLessThanOrEqual(3 + READ_PIPES);
    expect(row.connections).toBeLessThan(slugs.length);
  });

  it('gives back the same types as SQLite', async () => {
    await createTenant(storage, 'acme');
    const db = storage.tenantDb('acme');
    const user = await createUser(db, {
      username: 'alice', email: 'a@example.com', firstname: 'A', lastname: 'B', password: 'password1', gender_id: 3,
    });
    expect(typeof user.id).toBe('number');
    expect(user.gender_id).toBe(3);
    expect(user.is_vegetarian).toBe(false);
    expect(typeof user.created_at).toBe('string');
    const { count } = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(count).toBe(1);
  });

  it('moves an id sequence past the largest id after explicit ids, and never back', async () => {
    await createTenant(storage, 'acme');
    const db = storage.tenantDb('acme');
    const person = (username: string) => ({ username, email: `${username}@example.com`, firstname: 'A', lastname: 'B', password: 'x' });
    // A row with an id the sequence did not give, as the Laravel import writes them: the next
    // generated id follows it.
    const first = await createUser(db, person('imported'));
    await db.updateTable('users').set({ id: 40 }).where('id', '=', first.id).execute();
    await storage.syncIdSequences('acme', ['users']);
    expect((await createUser(db, person('next'))).id).toBe(41);
    // Ids handed out and deleted since (an erased person): a second sync must not give them again.
    for (const name of ['c', 'd', 'e']) await createUser(db, person(name));
    await db.deleteFrom('users').where('id', '>', 40).execute();
    await storage.syncIdSequences('acme', ['users']);
    expect((await createUser(db, person('after'))).id).toBeGreaterThan(44);
  });

  it('refreshes the planner statistics of a tenant table that grew at once, as after an import', async () => {
    await createTenant(storage, 'acme');
    const db = storage.tenantDb('acme');
    const first = await createUser(db, { username: 'u0', email: 'u0@example.com', firstname: 'A', lastname: 'B', password: 'x' });
    const { id: _id, ...columns } = await db.selectFrom('users').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
    const rows = Array.from({ length: 1_999 }, (_, i) => ({ ...columns, username: `u${i + 1}`, email: `u${i + 1}@example.com` }));
    for (let start = 0; start < rows.length; start += 500) await db.insertInto('users').values(rows.slice(start, start + 500)).execute();
    const estimate = async () =>
      Number((await query(`select c.reltuples from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = '${tenantSchema('acme')}' and c.relname = 'users'`))[0].reltuples);
    // What the planner believes until the table is analysed: not the 2,000 rows it holds.
    expect(await estimate()).not.toBe(2_000);
    await storage.refreshStatistics('acme', ['users', 'memberships']);
    expect(await estimate()).toBe(2_000);
  });

  it('migrates again without changes', async () => {
    await createTenant(storage, 'acme');
    expect(await migrateAll(storage)).toBe(1);
  });
});
