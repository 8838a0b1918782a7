import { CompiledQuery, sql, type Kysely, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../src/db/types.js';
import { sortKey } from '../../../src/lib/sort-key.js';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { listVisiblePeopleAs, type PeopleSelection } from '../../../src/modules/people/queries.js';
import { accessOf } from '../../../src/modules/permissions/rules.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DATABASE_URL } from '../../helpers/services.js';

/**
 * A troop leader's list of everyone they see (no group filter, what the people search and the
 * export read) tests each person also for the parents' rule: is one of their wards seen? The test
 * names the wards by id only, never their rows: a first version joined the wards' rows and
 * PostgreSQL walked the whole people table for every person tested. Now PostgreSQL makes each
 * test a set once per page (the guardians of seen wards) and SQLite looks up each person's wards by
 * the guardianship index. 3,000 people in 30 troops, a third of them parents of another; the plan
 * of a real page is asked.
 */
const DAY = '2026-02-14';
const PEOPLE = 3_000;
const TROOPS = 30;
const ON_POSTGRES = DATABASE_URL !== undefined;
type Db = Kysely<TenantDatabase>;

describe("the parents' rule in a leader's list of everyone", () => {
  let t: TestApp;
  let leaderId: number;
  let troopIds: number[];

  beforeAll(async () => {
    t = await buildTestApp();
    const db = t.storage.tenantDb('demo');
    const root = await t.rootGroupId('demo');
    const now = toDbTimestamp(new Date());
    troopIds = [];
    for (let i = 0; i < TROOPS; i++) {
      const [troop] = await db.insertInto('groups').values({ parent_id: root, name: `Troop ${i}`, name_key: sortKey(`Troop ${i}`), kind: 'troop', description: null, path: 'pending', created_at: now, updated_at: now }).returning('id').execute();
      const id = Number(troop!.id);
      await db.updateTable('groups').set({ path: `/${root}/${id}/` }).where('id', '=', id).execute();
      troopIds.push(id);
    }
    const ids: number[] = [];
    for (let start = 0; start < PEOPLE; start += 500) {
      const people = Array.from({ length: 500 }, (_, i) => {
        const lastname = `P${String(start + i).padStart(5, '0')}`;
        return {
          username: null, email: null, firstname: 'Member', lastname, lastname_key: sortKey(lastname), firstname_key: 'member',
          gender_id: null, type_id: null, phonenumber: null, phonenumber_mobile: null, street: null, housenumber: null, zip: null, city: null,
          is_vegetarian: 0 as const, can_swimm: 0 as const, birthday: null, password: null, is_active: 1 as const, created_at: now, updated_at: now,
        };
      });
      ids.push(...(await db.insertInto('users').values(people).returning('id').execute()).map(({ id }) => Number(id)));
    }
    // Two of three in a troop; every third (without a membership) the parent of the one before.
    const members = ids.filter((_, i) => i % 3 !== 2);
    await db
      .insertInto('memberships')
      .values(members.map((id, i) => ({ person_id: id, group_id: troopIds[Math.floor(i / 2) % TROOPS]!, role_type: 'member', label: null, start_on: '2000-01-01', end_on: null, created_at: now, updated_at: now })))
      .execute();
    await db
      .insertInto('guardianships')
      .values(ids.flatMap((id, i) => (i % 3 === 2 ? [{ guardian_id: id, ward_id: ids[i - 1]!, created_at: now }] : [])))
      .execute();
    leaderId = (await t.addUser('demo', { username: 'leader' })).id;
    await t.grant('demo', leaderId, troopIds[0]!, 'leader', { startOn: '2000-01-01' });
    if (ON_POSTGRES) for (const table of ['users', 'memberships', 'guardianships'] as const) await sql`analyze ${sql.raw(qualified(db, table))}`.execute(db);
  });
  afterAll(() => t.close());

  function qualified(db: Db, table: 'users' | 'memberships' | 'guardianships'): string {
    return /from ("[^"]+"\."[^"]+")/.exec(db.selectFrom(table).selectAll().compile().sql)![1]!;
  }

  /** The statement of the list's first page, caught on its way to the database, and the page. */
  async function firstPage(): Promise<{ query: CompiledQuery; ids: number[] }> {
    const db = t.storage.tenantDb('demo');
    const sent: RootOperationNode[] = [];
    const catching = db.withPlugin({ transformQuery: ({ node }) => (sent.push(node), node), transformResult: async ({ result }) => result });
    const selection: PeopleSelection = { activeOn: DAY, sort: 'name' };
    const rows = await listVisiblePeopleAs(catching, await accessOf(db, leaderId, DAY), selection, null, 200, 'rows');
    return { query: db.getExecutor().compileQuery(sent[sent.length - 1]!, { queryId: 'page' }), ids: rows.map((row) => Number(row.id)) };
  }

  it("lists the troop's members, their parents and the leader, and no one else", async () => {
    const db = t.storage.tenantDb('demo');
    const { ids } = await firstPage();
    const troopMembers = (await db.selectFrom('memberships').select('person_id').where('group_id', '=', troopIds[0]!).execute()).map((row) => Number(row.person_id));
    const parents = (await db.selectFrom('guardianships').select('guardian_id').where('ward_id', 'in', troopMembers).execute()).map((row) => Number(row.guardian_id));
    expect(parents.length).toBeGreaterThan(10);
    expect(new Set(ids)).toEqual(new Set([...troopMembers, ...parents]));
  });

  it.runIf(ON_POSTGRES)('tests the parents\' rule once for the whole page, never the people table again', async () => {
    const { query } = await firstPage();
    const db = t.storage.tenantDb('demo');
    const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (costs off) ${query.sql}`, [...query.parameters]));
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    // One walk of the people in name order; each test of a person is a set made once (hashed), not a query per person.
    expect(plan).toMatch(/Index Scan using users_list_order on [\w".]*users p/);
    expect(plan.match(/Scan (?:using \w+ )?on [\w".]*users/g)).toHaveLength(1);
    const filter = /Filter: (.*)/.exec(plan)![1]!;
    expect(filter.match(/SubPlan \d+/g)!.length).toBeGreaterThanOrEqual(2);
    expect(filter).not.toMatch(/(?<!hashed )SubPlan \d+/);
  });

  it.runIf(!ON_POSTGRES)("reads a person's wards by the guardianship index on SQLite", async () => {
    const { query } = await firstPage();
    const db = t.storage.tenantDb('demo');
    const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    const plan = rows.map((row) => row.detail).join('\n');
    expect(plan).toMatch(/SEARCH pw USING (?:COVERING )?INDEX guardianships_guardian_id \(guardian_id=\?\)/);
    expect(plan.match(/(?:SCAN|SEARCH) (?:p|w)\b/g)).toHaveLength(1);
  });
});
