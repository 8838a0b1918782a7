import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SortKey } from '../../../src/http/paging.js';
import { sortKey } from '../../../src/lib/sort-key.js';
import { toDbTimestamp } from '../../../src/lib/time.js';
import {
  choosePeoplePlan,
  listVisiblePeople,
  listVisiblePeopleAs,
  NAME_ORDER_FROM_MEMBERS,
  personSortKey,
  sortNamesOf,
  type PeoplePlan,
  type PeopleSelection,
  type PersonRef,
} from '../../../src/modules/people/queries.js';
import { accessOf, operatorAccess, type Access } from '../../../src/modules/permissions/rules.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { replaceGroupTree } from '../../helpers/group-tree.js';

/**
 * A name-sorted list of a group's members is read in one of three ways (members first, walking
 * the name order, or the range of the kept order). For random trees, memberships, names that share sort keys, callers and
 * selections, both plans page through exactly the list a plain reading gives: the people the caller
 * sees (the visibility module, tested on its own) who hold an active membership in the group (or
 * below it) on the day, of the role type if one is asked for, in name order, with no one twice.
 */
const DAY = '2026-02-14';
const PEOPLE = 10;
const ROLE_TYPES = ['admin', 'leader', 'assistant', 'member'];
const NAMES = ['Müller', 'Muller', 'müller', 'Meier', 'Émery', 'Emery', 'de la Cruz', "O'Brien", 'Zoe', 'Zoé'];

interface World {
  parents: number[];
  names: [string, string][];
  memberships: { person: number; group: number; role: string; start: string; end: string | null }[];
  caller: number;
  group: number;
  below: boolean;
  roleType: string | null;
  otherDay: boolean;
  /** People changed after their memberships were granted (their version and updated_at move), some renamed. */
  changed: { person: number; rename: [string, string] | null }[];
}

const day = fc.integer({ min: 10, max: 18 }).map((d) => `2026-02-${String(d)}`);
const world: fc.Arbitrary<World> = fc.integer({ min: 1, max: 12 }).chain((size) =>
  fc.record({
    parents: fc.tuple(...Array.from({ length: size }, (_, i) => (i === 0 ? fc.constant(-1) : fc.integer({ min: 0, max: i - 1 })))),
    names: fc.array(fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(...NAMES)), { minLength: PEOPLE, maxLength: PEOPLE }),
    memberships: fc
      .array(
        fc.record({
          person: fc.integer({ min: 0, max: PEOPLE - 1 }),
          group: fc.integer({ min: 0, max: size - 1 }),
          role: fc.constantFrom(...ROLE_TYPES),
          start: day,
          end: fc.option(day, { nil: null }),
        }),
        { maxLength: 30 },
      )
      .map((all) => all.filter((m) => m.end === null || m.start <= m.end)),
    caller: fc.integer({ min: 0, max: PEOPLE - 1 }),
    group: fc.integer({ min: 0, max: size - 1 }),
    below: fc.boolean(),
    roleType: fc.option(fc.constantFrom(...ROLE_TYPES), { nil: null }),
    otherDay: fc.boolean(),
    changed: fc.array(
      fc.record({ person: fc.integer({ min: 0, max: PEOPLE - 1 }), rename: fc.option(fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(...NAMES)), { nil: null }) }),
      { maxLength: 4 },
    ),
  }),
);

/** Code point order, as both dialects compare the binary name columns. */
const byCodePoints = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);

describe('the plans of a name-sorted group list', () => {
  let t: TestApp;
  let personIds: number[];
  beforeAll(async () => {
    t = await buildTestApp();
    personIds = [];
    for (let i = 0; i < PEOPLE; i++) personIds.push(Number((await t.addUser('demo', { username: `p${i}` })).id));
  });
  afterAll(() => t.close());

  async function store(w: World): Promise<{ groupIds: number[]; paths: string[]; names: [string, string][] }> {
    const db = t.storage.tenantDb('demo');
    const { groupIds, paths } = await replaceGroupTree(db, await t.rootGroupId('demo'), w.parents);
    for (const [i, [lastname, firstname]] of w.names.entries()) {
      await db
        .updateTable('users')
        .set({ lastname, firstname, lastname_key: sortKey(lastname), firstname_key: sortKey(firstname) })
        .where('id', '=', personIds[i]!)
        .execute();
    }
    for (const m of w.memberships) await t.grant('demo', personIds[m.person]!, groupIds[m.group]!, m.role, { startOn: m.start, endOn: m.end });
    const names = [...w.names];
    for (const { person, rename } of w.changed) {
      // As the service writes a person: a new version and updated_at with every change.
      const renamed = rename === null ? {} : { lastname: rename[0], firstname: rename[1], lastname_key: sortKey(rename[0]), firstname_key: sortKey(rename[1]) };
      if (rename !== null) names[person] = rename;
      await db
        .updateTable('users')
        .set((eb) => ({ ...renamed, city: `c${person}`, version: eb('version', '+', 1), updated_at: toDbTimestamp(new Date(Date.now() + person)) }))
        .where('id', '=', personIds[person]!)
        .execute();
    }
    return { groupIds, paths, names };
  }

  /**
   * Every page, 3 rows a page, following the cursor the way GET /people does. Each page's
   * references (what GET /people reads first, in its own query) are those of its rows.
   */
  async function walk(access: Access, selection: PeopleSelection, plan: PeoplePlan): Promise<number[]> {
    const db = t.storage.tenantDb('demo');
    const ids: number[] = [];
    let after: SortKey | null = null;
    const refOf = (row: PersonRef) => ({ id: Number(row.id), version: Number(row.version), updated_at: row.updated_at });
    for (let pages = 0; pages <= PEOPLE; pages++) {
      const rows = await listVisiblePeople(db, access, selection, after, 3, plan);
      expect((await listVisiblePeopleAs(db, access, selection, after, 3, 'refs', plan)).map(refOf)).toEqual(rows.map(refOf));
      ids.push(...rows.slice(0, 3).map((row) => Number(row.id)));
      if (rows.length <= 3) return ids;
      after = personSortKey(rows[2]!, 'name', sortNamesOf(rows[2]!));
    }
    throw new Error('the pages did not end');
  }

  it('every plan lists what the plain reading lists, in order', async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const { groupIds, paths, names } = await store(w);
        const db = t.storage.tenantDb('demo');
        const activeOn = w.otherDay ? '2026-02-11' : DAY;
        const selection: PeopleSelection = {
          activeOn,
          sort: 'name',
          group: { id: groupIds[w.group]!, path: paths[w.group]!, below: w.below },
          ...(w.roleType !== null ? { roleType: w.roleType } : {}),
        };
        const access = await accessOf(db, personIds[w.caller]!, DAY);
        const visible = new Set((await listVisiblePeople(db, access, { activeOn: DAY, sort: 'id' }, null, 1000)).map((row) => Number(row.id)));
        const inGroup = (g: number) => g === w.group || (w.below && paths[g]!.startsWith(paths[w.group]!));
        const members = new Set(
          w.memberships
            .filter((m) => inGroup(m.group) && m.start <= activeOn && (m.end === null || activeOn <= m.end) && (w.roleType === null || m.role === w.roleType))
            .map((m) => personIds[m.person]!),
        );
        const key = (id: number) => {
          const [lastname, firstname] = names[personIds.indexOf(id)]!;
          return [sortKey(lastname), sortKey(firstname), lastname, firstname] as const;
        };
        const inListOrder = (a: number, b: number) => {
          const [ka, kb] = [key(a), key(b)];
          for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return byCodePoints(ka[i]!, kb[i]!);
          return a - b;
        };
        const expected = [...members].filter((id) => visible.has(id)).sort(inListOrder);
        expect(await walk(access, selection, 'members-first')).toEqual(expected);
        expect(await walk(access, selection, 'name-order')).toEqual(expected);
        // The kept order only where it is chosen: where the group's members are all the caller's to see.
        if ((await choosePeoplePlan(db, access, selection)) === 'kept-order') expect(await walk(access, selection, 'kept-order')).toEqual(expected);
        // An operator of the day sees every member: the kept order is chosen for a subtree's members
        // with no role type, and every plan lists them all.
        const operator = await operatorAccess(db, activeOn);
        if (w.below && w.roleType === null) expect(await choosePeoplePlan(db, operator, selection)).toBe('kept-order');
        else expect(await choosePeoplePlan(db, operator, selection)).not.toBe('kept-order');
        const everyMember = [...members].sort(inListOrder);
        for (const plan of ['kept-order', 'name-order', 'members-first'] as const) expect(await walk(operator, selection, plan)).toEqual(everyMember);
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('reads the kept order or walks the name order only for a name-sorted list of a group whose members the caller all sees', async () => {
    const db = t.storage.tenantDb('demo');
    const root = await t.rootGroupId('demo');
    await db.deleteFrom('memberships').execute();
    await db.deleteFrom('groups').where('id', '!=', root).execute();
    const group = { id: root, path: `/${root}/`, below: true };
    const large: PeopleSelection = { activeOn: DAY, sort: 'name', group };
    const operator = await operatorAccess(db, DAY);
    expect(await choosePeoplePlan(db, operator, large)).toBe('kept-order');
    // Filters on the person's own fields leave the kept order: a small group reads its members first.
    expect(await choosePeoplePlan(db, operator, { ...large, isVegetarian: true })).toBe('members-first');
    // One person holds enough memberships to reach the threshold: it counts memberships, so a
    // tenant need not hold that many people for this test.
    const now = toDbTimestamp(new Date());
    const rows = Array.from({ length: NAME_ORDER_FROM_MEMBERS }, () => ({
      person_id: personIds[0]!, group_id: root, role_type: 'member', label: null, start_on: '2000-01-01', end_on: null, created_at: now, updated_at: now,
    }));
    for (let start = 0; start < rows.length; start += 200) await db.insertInto('memberships').values(rows.slice(start, start + 200)).execute();
    // A new day is a new selection (the plan of the previous one is remembered for a minute).
    const tomorrow: PeopleSelection = { ...large, activeOn: '2026-02-15' };
    const operatorTomorrow = await operatorAccess(db, '2026-02-15');
    expect(await choosePeoplePlan(db, operatorTomorrow, tomorrow)).toBe('kept-order');
    expect(await choosePeoplePlan(db, operatorTomorrow, { ...tomorrow, canSwimm: false })).toBe('name-order');
    expect(await choosePeoplePlan(db, operatorTomorrow, { ...tomorrow, sort: 'id' })).toBe('members-first');
    expect(await choosePeoplePlan(db, operatorTomorrow, { ...tomorrow, q: 'a' })).toBe('members-first');
    // A role type, or the group's own members: the few there would be picked from the whole subtree's rows.
    expect(await choosePeoplePlan(db, operatorTomorrow, { ...tomorrow, group: { ...group, below: false } })).toBe('name-order');
    expect(await choosePeoplePlan(db, operatorTomorrow, { ...tomorrow, roleType: 'leader' })).toBe('members-first');
    // Someone who sees only some of the members (here: none but themself) never walks.
    const member = await accessOf(db, personIds[0]!, '2026-02-15');
    expect(await choosePeoplePlan(db, member, tomorrow)).toBe('members-first');
    // Nor does a list of another day than the caller's.
    expect(await choosePeoplePlan(db, operator, tomorrow)).toBe('members-first');
    await db.deleteFrom('memberships').execute();
  });

  it('lists a person with two memberships in the subtree once, in the kept order as in the others', async () => {
    const db = t.storage.tenantDb('demo');
    const root = await t.rootGroupId('demo');
    const { groupIds, paths } = await replaceGroupTree(db, root, [-1, 0, 0]);
    await t.grant('demo', personIds[0]!, groupIds[1]!, 'member', { startOn: '2026-01-01' });
    await t.grant('demo', personIds[0]!, groupIds[2]!, 'leader', { startOn: '2026-01-01' });
    await t.grant('demo', personIds[0]!, root, 'member', { startOn: '2026-01-01' });
    await t.grant('demo', personIds[1]!, groupIds[2]!, 'member', { startOn: '2026-01-01' });
    const operator = await operatorAccess(db, DAY);
    const selection: PeopleSelection = { activeOn: DAY, sort: 'name', group: { id: root, path: paths[0]!, below: true } };
    for (const plan of ['kept-order', 'name-order', 'members-first'] as const) {
      expect((await listVisiblePeople(db, operator, selection, null, 10, plan)).map((row) => Number(row.id)).sort()).toEqual([personIds[0]!, personIds[1]!].sort());
    }
    await db.deleteFrom('memberships').execute();
  });

  it('lists no one of a group that moved out of the caller\'s reach after the request read it', async () => {
    const db = t.storage.tenantDb('demo');
    const root = await t.rootGroupId('demo');
    await db.deleteFrom('memberships').execute();
    await db.deleteFrom('groups').where('id', '!=', root).execute();
    const now = toDbTimestamp(new Date());
    const addGroup = async (parentId: number, parentPath: string, name: string) => {
      const { id } = await db
        .insertInto('groups')
        .values({ parent_id: parentId, name, name_key: name, kind: '', description: null, path: '', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const path = `${parentPath}${Number(id)}/`;
      await db.updateTable('groups').set({ path }).where('id', '=', Number(id)).execute();
      return { id: Number(id), path };
    };
    const a = await addGroup(root, `/${root}/`, 'a');
    const b = await addGroup(root, `/${root}/`, 'b');
    const troop = await addGroup(a.id, a.path, 'troop');
    await t.grant('demo', personIds[1]!, a.id, 'leader', { startOn: '2026-01-01' });
    for (const i of [2, 3, 4]) await t.grant('demo', personIds[i]!, troop.id, 'member', { startOn: '2026-01-01' });
    const access = await accessOf(db, personIds[1]!, DAY);
    for (const below of [false, true]) {
      // What the request read before the move: the troop inside the leader's region.
      const selection: PeopleSelection = { activeOn: DAY, sort: 'name', group: { id: troop.id, path: troop.path, below } };
      for (const plan of ['members-first', 'name-order', 'kept-order'] as const) {
        await db.updateTable('groups').set({ parent_id: a.id, path: troop.path }).where('id', '=', troop.id).execute();
        expect((await listVisiblePeople(db, access, selection, null, 10, plan)).map((row) => Number(row.id)).sort()).toEqual([2, 3, 4].map((i) => personIds[i]!).sort());
        // Moved under b, out of the leader's reach, while the request goes on.
        await db.updateTable('groups').set({ parent_id: b.id, path: `${b.path}${troop.id}/` }).where('id', '=', troop.id).execute();
        expect(await listVisiblePeople(db, access, selection, null, 10, plan)).toEqual([]);
      }
    }
    await db.deleteFrom('memberships').execute();
  });
});
