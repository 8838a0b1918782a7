import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tenantSchema } from '../../src/db/postgres.js';
import type { CacheChange } from '../../src/db/invalidation/queries.js';
import { toDbTimestamp } from '../../src/lib/time.js';
import { issueToken } from '../../src/modules/tokens/rules.js';
import { tokenLookupSql } from '../../src/modules/tokens/queries.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/**
 * The database announces every change to what a cache holds by itself: triggers write the
 * outbox in the writing transaction, and the storage relays it after the write. Checked column
 * by column for every table the token cache reads, as the database describes them, so a column
 * or a cached table added later without its trigger fails here.
 */

/** Columns whose changes no cache needs: written once a minute per token, and never read from memory. */
const NOT_ANNOUNCED: Record<string, string[]> = { personal_access_tokens: ['last_used_at'] };
/** The columns whose change moves a person's version by a trigger (migration move-version-with-names). */
const NAMES = ['lastname_key', 'firstname_key', 'lastname', 'firstname'];

describe('changes to cached rows are announced by the database', () => {
  let t: TestApp;
  let heard: CacheChange[];
  let unsubscribe: () => void;
  beforeEach(async () => {
    t = await buildTestApp();
    heard = [];
    unsubscribe = t.storage.invalidations.subscribe((change) => heard.push(change));
  });
  afterEach(async () => {
    unsubscribe();
    await t.close();
  });

  const cachedTables = () => {
    const sql = tokenLookupSql(t.storage.tenantDb('demo'));
    return [...sql.matchAll(/(?:from|join) (?:"[^"]+"\.)?"(\w+)"/g)].map((match) => match[1]!).sort();
  };

  /** A value different from any the row has, for a column of this type. */
  let counter = 0;
  const newValue = (table: string, column: string, dataType: string, otherUserId: number): unknown => {
    counter++;
    if (table === 'personal_access_tokens' && column === 'tokenable_id') return otherUserId;
    if (column === 'token') return counter.toString(16).padStart(64, '0');
    const type = dataType.toLowerCase();
    if (type.includes('char') || type === 'text') return column === 'email' ? `changed${counter}@example.com` : `changed${counter}`;
    if (type.includes('int')) return 1000 + counter;
    if (type.includes('bool')) return t.storage.dialect === 'postgres' ? true : 1;
    if (type.includes('timestamp')) return toDbTimestamp(new Date(Date.now() + counter * 1000));
    throw new Error(`no test value for ${table}.${column} (${dataType}): add one`);
  };

  it('reads the token cache from users and personal_access_tokens', () => {
    expect(cachedTables()).toEqual(['personal_access_tokens', 'users']);
  });

  it('announces an update of every cached column, and every deletion, before the write returns', async () => {
    const db = t.storage.tenantDb('demo');
    const alice = await t.addUser('demo');
    const bob = await t.addUser('demo', { username: 'bob' });
    const token = await issueToken(db, alice.id, { tokenPrefix: '' });
    const rows: Record<string, { id: number; change: Omit<CacheChange, 'tenant'> }> = {
      users: { id: alice.id, change: { userId: alice.id, tokenId: null } },
      personal_access_tokens: { id: token.accessToken.id, change: { userId: null, tokenId: token.accessToken.id } },
    };
    const tables = await db.introspection.getTables();
    for (const table of cachedTables()) {
      const row = rows[table]!;
      const columns = tables.find((candidate) => candidate.name === table)!.columns.filter((column) => column.name !== 'id');
      expect(columns.length).toBeGreaterThan(5);
      for (const column of columns) {
        heard.length = 0;
        const value = newValue(table, column.name, column.dataType, bob.id);
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        await (db as any).updateTable(table).set({ [column.name]: value }).where('id', '=', row.id).execute();
        const announcement = { tenant: 'demo', ...row.change };
        // A rename is announced twice on SQLite: the trigger that moves the version with the names
        // (migration move-version-with-names) writes the row a second time.
        const renamedTwice = t.storage.dialect === 'sqlite' && table === 'users' && NAMES.includes(column.name);
        const expected = NOT_ANNOUNCED[table]?.includes(column.name) ? [] : renamedTwice ? [announcement, announcement] : [announcement];
        expect(heard, `${table}.${column.name}`).toEqual(expected);
      }
    }
    heard.length = 0;
    await db.deleteFrom('personal_access_tokens').where('id', '=', token.accessToken.id).execute();
    await db.deleteFrom('users').where('id', '=', alice.id).execute();
    expect(heard).toEqual([
      { tenant: 'demo', userId: null, tokenId: token.accessToken.id },
      { tenant: 'demo', userId: alice.id, tokenId: null },
    ]);
  });

  it('announces nothing for a write that is rolled back, and for new rows', async () => {
    const db = t.storage.tenantDb('demo');
    const alice = await t.addUser('demo');
    await issueToken(db, alice.id, { tokenPrefix: '' });
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ city: 'Genf' }).where('id', '=', alice.id).execute();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(heard).toEqual([]);
    expect(await db.selectFrom('cache_changes').selectAll().execute()).toEqual([]);
  });

  it('announces from triggers on users and personal_access_tokens only: the writes that may announce (watched-driver.ts)', async () => {
    const db = t.storage.tenantDb('demo');
    // Each trigger's table and what it runs: SQLite's text after BEGIN, PostgreSQL's function body.
    const triggers =
      t.storage.dialect === 'postgres'
        ? (
            await sql<{ table: string; body: string }>`select c.relname as "table", p.prosrc as body from pg_trigger tg
              join pg_class c on c.oid = tg.tgrelid join pg_namespace n on n.oid = c.relnamespace join pg_proc p on p.oid = tg.tgfoid
              where n.nspname = ${tenantSchema('demo')} and not tg.tgisinternal`.execute(db)
          ).rows
        : (await sql<{ table: string; sql: string }>`select tbl_name as "table", sql from sqlite_master where type = 'trigger'`.execute(db)).rows.map((row) => ({
            table: row.table,
            body: row.sql.slice(row.sql.search(/\bbegin\b/i)),
          }));
    const written = (body: string) =>
      [...body.matchAll(/\b(?:insert\s+into|update|delete\s+from)\s+(?:"[^"]+"\.)?"?(\w+)"?/gi)].map((match) => match[1]!.toLowerCase());
    const announcing = triggers.filter((trigger) => written(trigger.body).includes('cache_changes'));
    expect([...new Set(announcing.map((trigger) => trigger.table))].sort()).toEqual(['personal_access_tokens', 'users']);
    // The others keep the people lists' order (member_order), or move the version of the users
    // row being written (a write that names users already), and write nothing else: no write to
    // another table reaches users or tokens through a trigger.
    const movesVersion = /^begin update users set version = version \+ 1 where id = new\.id; end$/i;
    for (const trigger of triggers.filter((one) => !announcing.includes(one))) {
      // The trigger that moves a person's version with their names: on SQLite a second update
      // of the row being written (a write that names users already), on PostgreSQL no write.
      if (trigger.table === 'users' && (movesVersion.test(trigger.body) || written(trigger.body).length === 0)) continue;
      expect(new Set(written(trigger.body)), trigger.body).toEqual(new Set(['member_order']));
    }
    expect(triggers.length).toBeGreaterThan(announcing.length);
  });

  it('reads the outbox only after writes that name users or tokens, and counts every write', async () => {
    const db = t.storage.tenantDb('demo');
    const alice = await t.addUser('demo');
    // A change another process committed but could not relay (it died): still in the outbox.
    await db.insertInto('cache_changes').values({ user_id: alice.id, token_id: null }).execute();
    const writesBefore = t.storage.invalidations.writes('demo');
    const root = await t.rootGroupId('demo');
    await db.updateTable('groups').set({ description: 'on its own' }).where('id', '=', root).execute();
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('groups').set({ description: 'in a transaction' }).where('id', '=', root).execute();
    });
    // Nothing these writes did can be in the outbox: it is not read for them, but they count.
    expect(heard).toEqual([]);
    expect(t.storage.invalidations.writes('demo')).toBe(writesBefore + 2);
    // A write that names users reads it, and relays what waited there with its own change.
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('groups').set({ description: 'with a user' }).where('id', '=', root).execute();
      await trx.updateTable('users').set({ city: 'Genf' }).where('id', '=', alice.id).execute();
    });
    expect(heard).toEqual([
      { tenant: 'demo', userId: alice.id, tokenId: null },
      { tenant: 'demo', userId: alice.id, tokenId: null },
    ]);
    expect(await db.selectFrom('cache_changes').selectAll().execute()).toEqual([]);
  });
});
