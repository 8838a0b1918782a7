import { CompiledQuery, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../src/db/types.js';
import { sortKey } from '../../../src/lib/sort-key.js';
import { listVisiblePeopleAs, type PeopleSelection } from '../../../src/modules/people/queries.js';
import { operatorAccess } from '../../../src/modules/permissions/rules.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { replaceGroupTree } from '../../helpers/group-tree.js';

/**
 * The kept order's page of references (what GET /people reads on each page of a large subtree)
 * is one range of index `member_order_list`, in its order: no sort of the range, and no read of
 * `users`. Its cost then does not grow with the subtree or the tenant (the people page's
 * targets, docs/benchmarks/README.md). The plans are asked of each dialect for the statement the
 * page really sends; on PostgreSQL with sorts, hash aggregation and sequential scans priced out,
 * so a plan that still sorts proves the grouping does not follow the index (the tables here are
 * too small for the planner to care otherwise).
 */
const DAY = '2026-02-14';
type Db = Kysely<TenantDatabase>;

describe("the kept order's page of references", () => {
  let t: TestApp;
  let selection: PeopleSelection;

  beforeAll(async () => {
    t = await buildTestApp();
    const db = t.storage.tenantDb('demo');
    const { groupIds, paths } = await replaceGroupTree(db, await t.rootGroupId('demo'), [-1, 0, 1, 1]);
    for (const [i, name] of ['Aebi', 'Brun', 'Cadonau', 'Derungs', 'Egli', 'Frei'].entries()) {
      const person = await t.addUser('demo', { username: `p${i}`, lastname: name });
      await t.grant('demo', Number(person.id), groupIds[2 + (i % 2)]!, 'member', { startOn: '2026-01-01' });
    }
    selection = { activeOn: DAY, sort: 'name', group: { id: groupIds[1]!, path: paths[1]!, below: true } };
  });
  afterAll(() => t.close());

  /** The statements a page sends, caught on their way to the database. */
  async function statementsOfPage(after: readonly [string, string, string, string, number] | null): Promise<CompiledQuery[]> {
    const db = t.storage.tenantDb('demo');
    const sent: CompiledQuery[] = [];
    const catching = new Proxy(db, {
      get(target, property) {
        if (property === 'executeQuery') {
          return (query: CompiledQuery) => {
            sent.push(query);
            return target.executeQuery(query);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const rows = await listVisiblePeopleAs(catching, await operatorAccess(db, DAY), selection, after, 2, 'refs', 'kept-order');
    expect(rows.length).toBe(3);
    return sent;
  }

  async function planOf(query: CompiledQuery): Promise<string[]> {
    const db: Db = t.storage.tenantDb('demo');
    if (t.storage.dialect !== 'postgres') {
      const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
      return rows.map((row) => row.detail);
    }
    return db.transaction().execute(async (trx) => {
      for (const setting of ['enable_sort', 'enable_incremental_sort', 'enable_hashagg', 'enable_seqscan']) await sql.raw(`set local ${setting} = off`).execute(trx);
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (costs off) ${query.sql}`, [...query.parameters]));
      return rows.map((row) => row['QUERY PLAN'].trim());
    });
  }

  for (const page of ['first', 'from a cursor'] as const) {
    it(`is one range of member_order_list in its order, with no read of users (${page} page)`, async () => {
      const sent = await statementsOfPage(page === 'first' ? null : [sortKey('Aebi'), '', 'Aebi', '', 0]);
      expect(sent.length).toBe(1);
      const plan = await planOf(sent[0]!);
      const text = plan.join('\n');
      // The tables read, by their aliases: o (member_order) and sg (the group, read once); users would be p or u.
      if (t.storage.dialect === 'postgres') {
        expect(text).toMatch(/Index Only Scan using member_order_list on [\w".]*member_order o/);
        expect(text).not.toMatch(/Sort|HashAggregate|Seq Scan/);
        expect(new Set([...text.matchAll(/ on [\w".]+ (\w+)/g)].map((match) => match[1]))).toEqual(new Set(['o', 'sg']));
      } else {
        expect(text).toMatch(/SEARCH o USING COVERING INDEX member_order_list \(group_id=\?/);
        expect(text).not.toMatch(/TEMP B-TREE/);
        expect(new Set([...text.matchAll(/^(?:SCAN|SEARCH) (\w+)/gm)].map((match) => match[1]))).toEqual(new Set(['o', 'sg']));
      }
    });
  }
});
