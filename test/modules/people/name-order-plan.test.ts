import { CompiledQuery, sql, type Kysely, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../src/db/types.js';
import { sortKey } from '../../../src/lib/sort-key.js';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { listVisiblePeopleAs, type PeopleSelection } from '../../../src/modules/people/queries.js';
import { operatorAccess } from '../../../src/modules/permissions/rules.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DATABASE_URL } from '../../helpers/services.js';

/**
 * A page of a large group's own members in name order (what a CSV export of a troop reads, 2,001
 * rows a page) tests each person it reads for a membership, one index lookup each. On PostgreSQL
 * the correlated test was planned as a join: the group's whole membership list read and its
 * people sorted, for every page, whether the statistics were those of a tenant just filled
 * (taken while the tables were empty) or current. An export of 100,000 people took 25 s, now 7.5 s.
 * The plan is asked for the statement a page really sends, after 3,000 members came; SQLite,
 * which walked already, is held to the same walk.
 */
const DAY = '2026-02-14';
const MEMBERS = 3_000;
const ON_POSTGRES = DATABASE_URL !== undefined;
type Db = Kysely<TenantDatabase>;

describe("a name-ordered page of a large group's own members", () => {
  let t: TestApp;
  let selection: PeopleSelection;

  beforeAll(async () => {
    t = await buildTestApp();
    const db = t.storage.tenantDb('demo');
    const root = await t.rootGroupId('demo');
    if (ON_POSTGRES) for (const table of ['users', 'memberships'] as const) await sql`analyze ${sql.raw(qualified(db, table))}`.execute(db);
    const now = toDbTimestamp(new Date());
    for (let start = 0; start < MEMBERS; start += 500) {
      const people = Array.from({ length: 500 }, (_, i) => {
        const lastname = `P${String(start + i).padStart(5, '0')}`;
        return {
          username: null, email: null, firstname: 'Member', lastname, lastname_key: sortKey(lastname), firstname_key: 'member',
          gender_id: null, type_id: null, phonenumber: null, phonenumber_mobile: null, street: null, housenumber: null, zip: null, city: null,
          is_vegetarian: 0 as const, can_swimm: 0 as const, birthday: null, password: null, is_active: 1 as const, created_at: now, updated_at: now,
        };
      });
      const ids = await db.insertInto('users').values(people).returning('id').execute();
      await db
        .insertInto('memberships')
        .values(ids.map(({ id }) => ({ person_id: id, group_id: root, role_type: 'member', label: null, start_on: '2000-01-01', end_on: null, created_at: now, updated_at: now })))
        .execute();
    }
    selection = { activeOn: DAY, sort: 'name', group: { id: root, path: `/${root}/`, below: false } };
  });
  afterAll(() => t.close());

  /** The table's name as the tenant's statements spell it (its schema included). */
  function qualified(db: Db, table: 'users' | 'memberships'): string {
    return /from ("[^"]+"\."[^"]+")/.exec(db.selectFrom(table).selectAll().compile().sql)![1]!;
  }

  /** The statement a page sends, caught on its way to the database. */
  async function statementOfPage(): Promise<CompiledQuery> {
    const db = t.storage.tenantDb('demo');
    const sent: RootOperationNode[] = [];
    const catching = db.withPlugin({
      transformQuery: ({ node }) => (sent.push(node), node),
      transformResult: async ({ result }) => result,
    });
    const after = [sortKey('P00999'), 'member', 'P00999', 'Member', 0] as const;
    const rows = await listVisiblePeopleAs(catching, await operatorAccess(db, DAY), selection, after, 2000, 'rows', 'name-order');
    expect(rows.length).toBe(2001);
    // Subqueries pass the plugin too, each as it is built into the statement; the statement comes last.
    return db.getExecutor().compileQuery(sent[sent.length - 1]!, { queryId: 'page' });
  }

  async function planOfPage(): Promise<string> {
    const query = await statementOfPage();
    const db = t.storage.tenantDb('demo');
    if (!ON_POSTGRES) {
      const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
      return rows.map((row) => row.detail).join('\n');
    }
    const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (costs off) ${query.sql}`, [...query.parameters]));
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  it.runIf(ON_POSTGRES)('tests each person it reads for a membership, even while the statistics describe empty tables', async () => {
    const plan = await planOfPage();
    // A per-person lookup in memberships_person, never the group's memberships read whole.
    expect(plan).toMatch(/SubPlan[\s\S]*Index Only Scan using memberships_person on [\w".]*memberships fm/);
    expect(plan).not.toMatch(/HashAggregate|Hash Semi Join|Hash Join|Seq Scan on [\w".]*memberships/);
  });

  it.runIf(ON_POSTGRES)('walks the people in name order, testing each, once the statistics describe the tables', async () => {
    const db = t.storage.tenantDb('demo');
    for (const table of ['users', 'memberships'] as const) await sql`analyze ${sql.raw(qualified(db, table))}`.execute(db);
    const plan = await planOfPage();
    expect(plan).toMatch(/Index Scan using users_list_order on [\w".]*users p/);
    expect(plan).toMatch(/SubPlan[\s\S]*memberships_person/);
    expect(plan).not.toMatch(/Sort|HashAggregate|Hash Semi Join|Hash Join|Seq Scan/);
  });

  it.runIf(!ON_POSTGRES)('walks the people in name order on SQLite, testing each', async () => {
    const plan = await planOfPage();
    // The people in the loop outside, each looked up in memberships_person inside.
    expect(plan).toMatch(/SEARCH p USING INDEX users_list_order[^\n]*\nSEARCH fm EXISTS USING (?:COVERING )?INDEX memberships_person \(person_id=\?/);
    expect(plan).not.toMatch(/TEMP B-TREE|SCAN fm/);
  });
});
