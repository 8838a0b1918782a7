import { CompiledQuery, sql, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDb } from '../../../src/db/types.js';
import { createCursorCodec } from '../../../src/http/paging.js';
import { listMembers, memberSelection } from '../../../src/modules/members/rules.js';
import type { MembersFilters } from '../../../src/modules/members/schemas.js';
import { accessOf } from '../../../src/modules/permissions/rules.js';
import { buildMembersWorld, type MembersWorld } from './world.js';

/**
 * What a page of the members list asks of the database: a few statements, each read through
 * indexes. A name-sorted page is one range of `member_order_list` in its order (no sort, so its
 * cost is the page's, not the group's); every other statement finds its rows by an index, never
 * by reading a whole table. The plans are asked of each dialect for the statements a page really
 * sends; on PostgreSQL with sequential scans (and, for the name order, sorts) priced out, as the
 * tables here are too small for the planner to care otherwise.
 */
describe('the statements of a page of members', () => {
  let w: MembersWorld;
  let db: TenantDb;
  beforeAll(async () => {
    w = await buildMembersWorld();
    db = w.t.storage.tenantDb('demo');
  }, 60_000);
  afterAll(() => w?.t.close());

  const postgres = () => w.t.storage.dialect === 'postgres';

  /** The statements of one page, caught on their way to the database. */
  async function statementsOfPage(who: string, groupId: number, filters: MembersFilters, cursor?: string): Promise<{ sent: CompiledQuery[]; next: string | null }> {
    const sent: CompiledQuery[] = [];
    // Subqueries pass transformQuery too, with ids of their own; only a statement sent has a result.
    const nodes = new Map<unknown, RootOperationNode>();
    const catching = db.withPlugin({
      transformQuery: ({ node, queryId }) => {
        nodes.set(queryId, node);
        return node;
      },
      transformResult: async ({ result, queryId }) => {
        sent.push(db.getExecutor().compileQuery(nodes.get(queryId)!, queryId));
        return result;
      },
    });
    const group = await db.selectFrom('groups').selectAll().where('id', '=', groupId).executeTakeFirstOrThrow();
    const access = await accessOf(db, w.ids[who]!, new Date().toISOString().slice(0, 10));
    const selection = memberSelection(access, group, filters);
    const page = await listMembers(catching, selection, createCursorCodec(Buffer.alloc(32)), cursor, 2);
    expect(page.members.length).toBe(2);
    return { sent, next: page.nextCursor };
  }

  async function planOf(query: CompiledQuery, noSorts: boolean): Promise<string> {
    if (!postgres()) {
      const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
      return rows.map((row) => row.detail).join('\n');
    }
    return db.transaction().execute(async (trx) => {
      const settings = ['enable_seqscan', ...(noSorts ? ['enable_sort', 'enable_incremental_sort', 'enable_hashagg'] : [])];
      for (const setting of settings) await sql.raw(`set local ${setting} = off`).execute(trx);
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (costs off) ${query.sql}`, [...query.parameters]));
      return rows.map((row) => row['QUERY PLAN'].trim()).join('\n');
    });
  }

  /** Every table is read through an index: no whole table is scanned. */
  function expectIndexesOnly(plan: string) {
    if (postgres()) expect(plan).not.toMatch(/Seq Scan/);
    // SQLite scans the rows of a subquery it made (a materialised view), never a table.
    else for (const [, table] of plan.matchAll(/^SCAN (\w+)/gm)) expect(['s', 'k'], plan).toContain(table);
  }

  /** The page itself reads `member_order_list` from the cursor in its order: nothing sorted. */
  function expectKeptOrder(plan: string) {
    if (postgres()) {
      expect(plan).toMatch(/Index Only Scan (Backward )?using member_order_list on [\w".]*member_order o/);
      expect(plan).not.toMatch(/Sort|HashAggregate/);
    } else {
      expect(plan).toMatch(/SEARCH o USING COVERING INDEX member_order_list \(group_id=\?/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
  }

  /** The page's memberships come by their people (a few each), never by the group's or subtree's many. */
  function expectPersonMemberships(plan: string) {
    if (postgres()) expect(plan).toMatch(/(Index (Only )?Scan using|Bitmap Index Scan on) memberships_person\b/);
    else expect(plan).toMatch(/SEARCH m USING (COVERING )?INDEX memberships_person \(person_id=\?/);
  }

  const cases: [string, string, keyof MembersWorld['groups'], MembersFilters][] = [
    ['name, members the leader sees anyway', 'leader', 'region', { below: true }],
    ['-name, with q and the visibility test', 'assistant', 'troopA', { below: true, sort: '-name', q: 'e' }],
    ['name, every membership', 'admin', 'troopA', { all: true }],
  ];
  for (const [title, who, group, filters] of cases) {
    it(`sends three statements for a first page, two for the next, all by index; the page in the kept order (${title})`, async () => {
      const first = await statementsOfPage(who, w.groups[group], filters);
      expect(first.sent).toHaveLength(3);
      expectKeptOrder(await planOf(first.sent[0]!, true));
      for (const statement of first.sent) expectIndexesOnly(await planOf(statement, false));
      const next = await statementsOfPage(who, w.groups[group], filters, first.next!);
      expect(next.sent).toHaveLength(2);
      expectKeptOrder(await planOf(next.sent[0]!, true));
      expectPersonMemberships(await planOf(next.sent[1]!, false));
    });
  }

  for (const sort of ['birthday', '-birthday', 'role'] as const) {
    it(`reads the selected people by index for sort=${sort}`, async () => {
      for (const [who, group] of [['leader', 'region'], ['assistant', 'troopA']] as const) {
        const first = await statementsOfPage(who, w.groups[group], { below: true, sort });
        expect(first.sent).toHaveLength(3);
        for (const statement of first.sent) expectIndexesOnly(await planOf(statement, false));
        const next = await statementsOfPage(who, w.groups[group], { below: true, sort }, first.next!);
        for (const statement of next.sent) expectIndexesOnly(await planOf(statement, false));
      }
    });
  }
});
