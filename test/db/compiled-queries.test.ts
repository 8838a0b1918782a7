import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type SqlBool } from 'kysely';
import { describe, expect, it } from 'vitest';
import { CompiledQueries } from '../../src/db/compiled-queries.js';

interface Db {
  people: { id: number; group_id: number; name: string };
}

// Compiling needs no database: PostgreSQL's compiler names each handle's schema in the text.
const root = new Kysely<Db>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

// A type, not an interface: shape inputs must be JSON values, which an interface is not known to be.
type Page = {
  groupId: number;
  limit: number;
};

function counted() {
  const built: Page[] = [];
  const page = (db: Kysely<Db>, { groupId, limit }: Page, after: readonly unknown[]) => {
    built.push({ groupId, limit });
    let query = db.selectFrom('people').selectAll().where('group_id', '=', groupId);
    if (after.length > 0) query = query.where(sql<SqlBool>`(name, id) > (${after[0]}, ${after[1]})`);
    return query.orderBy('name').orderBy('id').limit(limit);
  };
  return { built, pages: new CompiledQueries(page, 2) };
}

describe('compiled queries kept per shape', () => {
  it('builds a shape once and puts each call’s varying values into its parameters', () => {
    const { built, pages } = counted();
    const first = pages.compile(root, { groupId: 7, limit: 51 }, ['b', 2]);
    const second = pages.compile(root, { groupId: 7, limit: 51 }, ['x', 9]);
    expect(built).toHaveLength(1);
    expect(second.sql).toBe(first.sql);
    expect(first.sql).toBe('select * from "people" where "group_id" = $1 and (name, id) > ($2, $3) order by "name", "id" limit $4');
    expect(first.parameters).toEqual([7, 'b', 2, 51]);
    expect(second.parameters).toEqual([7, 'x', 9, 51]);
    expect(second.queryId).not.toBe(first.queryId);
  });

  it('keys a shape by all its inputs and the number of varying values, and each handle apart', async () => {
    const { built, pages } = counted();
    expect(pages.compile(root, { groupId: 7, limit: 51 }, []).parameters).toEqual([7, 51]);
    expect(pages.compile(root, { groupId: 8, limit: 51 }, []).parameters).toEqual([8, 51]);
    expect(pages.compile(root, { groupId: 8, limit: 51 }, ['b', 2]).parameters).toEqual([8, 'b', 2, 51]);
    expect(built).toHaveLength(3);
    const a = root.withSchema('tenant_a');
    const b = root.withSchema('tenant_b');
    // The schema plugin passes the stand-ins on: each tenant's text, each call's values.
    for (const [handle, schema] of [[a, 'tenant_a'], [b, 'tenant_b']] as const) {
      for (const after of [['b', 2], ['x', 9]]) {
        const compiled = pages.compile(handle, { groupId: 7, limit: 51 }, after);
        expect(compiled.sql).toBe(`select * from "${schema}"."people" where "group_id" = $1 and (name, id) > ($2, $3) order by "name", "id" limit $4`);
        expect(compiled.parameters).toEqual([7, ...after, 51]);
      }
    }
    expect(built).toHaveLength(5);
    // A transaction's handle is gone with it: nothing is kept for it.
    await root.transaction().execute(async (trx) => {
      expect(pages.compile(trx, { groupId: 7, limit: 51 }, ['b', 2]).parameters).toEqual([7, 'b', 2, 51]);
      expect(pages.compile(trx, { groupId: 7, limit: 51 }, ['c', 3]).parameters).toEqual([7, 'c', 3, 51]);
    });
    expect(built).toHaveLength(7);
  });

  it('refuses a shape that derives something from a varying value instead of passing it on', () => {
    const derived = new CompiledQueries(
      (db: Kysely<Db>, _inputs: Record<string, never>, varying: readonly unknown[]) => db.selectFrom('people').selectAll().where('name', '>=', `${String(varying[0])}%`),
      4,
    );
    expect(() => derived.compile(root, {}, ['a'])).toThrow(/did not reach its parameters unchanged/);
  });
});
