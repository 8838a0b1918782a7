import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sortKey } from '../../../src/lib/sort-key.js';
import type { TestApp } from '../../helpers/app.js';
import type { UserRow } from '../../../src/db/types.js';

/**
 * A change that lands between a people page's query and the read of the people whose JSON is not
 * kept: the route then reads the page again, whole, and makes its cursor from those rows. The
 * change is made where that read begins (findPeopleByIds), so the race happens every time.
 */
const race = vi.hoisted(() => ({ before: null as null | (() => Promise<void>) }));
vi.mock('../../../src/modules/people/queries.js', async (original) => {
  const queries = await original<typeof import('../../../src/modules/people/queries.js')>();
  return {
    ...queries,
    findPeopleByIds: async (...args: Parameters<typeof queries.findPeopleByIds>): Promise<UserRow[]> => {
      const change = race.before;
      race.before = null;
      await change?.();
      return queries.findPeopleByIds(...args);
    },
  };
});

// Files share their worker's modules (vitest.config.ts, isolate: false): the app is loaded anew
// here, after the mock, or it would keep the queries an earlier file loaded.
let helpers: typeof import('../../helpers/app.js');
let regionWithMembers: typeof import('../../helpers/region.js').regionWithMembers;
beforeAll(async () => {
  vi.resetModules();
  helpers = await import('../../helpers/app.js');
  ({ regionWithMembers } = await import('../../helpers/region.js'));
});

describe('GET /people: a page read again whole after someone on it changed', () => {
  let t: TestApp;
  let token: string;
  let region: number;
  let ids: Record<string, number>;

  const get = async (url: string) => {
    const answer = await t.app.inject({ method: 'GET', url: `/api${url}`, headers: { ...helpers.JSON_HEADERS, host: helpers.hostOf('demo'), authorization: `Bearer ${token}` } });
    expect(answer.statusCode).toBe(200);
    return answer.json().data as { people: { id: number; lastname: string }[]; next_cursor: string | null };
  };

  beforeEach(async () => {
    t = await helpers.buildTestApp();
    ({ token, region, ids } = await regionWithMembers(t, ['Aebi', 'Brun', 'Cadonau', 'Derungs', 'Egli', 'Frei']));
  });
  afterEach(() => t.close());

  it('lists everyone once, in the order of their names after the change, following the cursors', async () => {
    const db = t.storage.tenantDb('demo');
    // Brun, on the first page, becomes Zahner while the page is being read.
    race.before = async () => {
      const row = await db.selectFrom('users').select(['version']).where('id', '=', ids.Brun!).executeTakeFirstOrThrow();
      await db
        .updateTable('users')
        .set({ lastname: 'Zahner', lastname_key: sortKey('Zahner'), version: Number(row.version) + 1, updated_at: '2030-01-01 00:00:00.000000' })
        .where('id', '=', ids.Brun!)
        .execute();
    };
    const names: string[] = [];
    let url = `/people?group_id=${region}&below=true&limit=2`;
    for (let pages = 0; pages < 10; pages++) {
      const page = await get(url);
      names.push(...page.people.map((person) => person.lastname));
      if (page.next_cursor === null) break;
      url = `/people?group_id=${region}&below=true&limit=2&cursor=${encodeURIComponent(page.next_cursor)}`;
    }
    expect(race.before).toBeNull();
    expect(names).toEqual(['Aebi', 'Cadonau', 'Derungs', 'Egli', 'Frei', 'Zahner']);
  });
});
