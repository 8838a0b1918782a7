import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type Permission } from '../../../src/modules/permissions/levels.js';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { listVisiblePeople } from '../../../src/modules/people/queries.js';
import { accessOf, canSeePerson, rightsToChange, rightToChange } from '../../../src/modules/permissions/rules.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { replaceGroupTree } from '../../helpers/group-tree.js';

/**
 * Who sees and who may change a person (docs/rules/visibility.md) against a plain reading of the
 * rules, parents reached through their children included: for random trees (up to 50 groups), random memberships with random dates, random
 * guardianships and a random caller, the permission module (its SQL for lists, its checks for one
 * person) answers what walking up the tree answers, for seeing a person and for changing them (one
 * by one, and for all at once as the CSV import asks).
 */
const ROLES: Record<string, { permission: Permission; scope: 'group' | 'subtree' }> = {
  admin: { permission: 'admin', scope: 'subtree' },
  leader: { permission: 'write', scope: 'subtree' },
  assistant: { permission: 'read', scope: 'group' },
  member: { permission: 'none', scope: 'group' },
};
const DAY = '2026-02-14';
const PEOPLE = 8;

interface World {
  parents: number[];
  memberships: { person: number; group: number; role: string; start: string; end: string | null }[];
  guardianships: [number, number][];
  caller: number;
}

const rank = (p: Permission) => PERMISSIONS.indexOf(p);
const active = (m: { start: string; end: string | null }) => m.start <= DAY && (m.end === null || DAY <= m.end);

function referencePermission(world: World, group: number): Permission {
  let best: Permission = 'none';
  for (const m of world.memberships) {
    if (m.person !== world.caller || !active(m)) continue;
    const role = ROLES[m.role]!;
    let reaches = m.group === group;
    for (let at = world.parents[group]!; !reaches && role.scope === 'subtree' && at !== -1; at = world.parents[at]!) reaches = at === m.group;
    if (reaches && rank(role.permission) > rank(best)) best = role.permission;
  }
  return best;
}

function referenceHolds(world: World, person: number, needed: Permission): boolean {
  const groups = world.memberships.filter((m) => m.person === person && active(m)).map((m) => m.group);
  if (groups.length === 0) return rank(referencePermission(world, 0)) >= rank(needed);
  return groups.some((g) => rank(referencePermission(world, g)) >= rank(needed));
}

/** The wards of `person`. */
const wardsOf = (world: World, person: number) => world.guardianships.filter(([g]) => g === person).map(([, ward]) => ward);

/** Whether the caller holds `write` on a group where `person` has an active membership (not the root fallback). */
const leadsWhere = (world: World, person: number) =>
  world.memberships.some((m) => m.person === person && active(m) && rank(referencePermission(world, m.group)) >= rank('write'));

const isGuardian = (world: World, person: number) => world.guardianships.some(([g, w]) => g === world.caller && w === person);

const day = fc.integer({ min: 10, max: 18 }).map((d) => `2026-02-${String(d)}`);
const world: fc.Arbitrary<World> = fc
  .integer({ min: 1, max: 50 })
  .chain((size) =>
    fc.record({
      parents: fc.tuple(...Array.from({ length: size }, (_, i) => (i === 0 ? fc.constant(-1) : fc.integer({ min: 0, max: i - 1 })))),
      memberships: fc.array(
        fc.record({
          person: fc.integer({ min: 0, max: PEOPLE - 1 }),
          group: fc.integer({ min: 0, max: size - 1 }),
          role: fc.constantFrom(...Object.keys(ROLES)),
          start: day,
          end: fc.option(day, { nil: null }),
        }),
        { maxLength: 30 },
      ),
      guardianships: fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: PEOPLE - 1 }), fc.integer({ min: 0, max: PEOPLE - 1 })), {
        maxLength: 4,
        selector: ([g, w]) => `${g}-${w}`,
      }),
      caller: fc.integer({ min: 0, max: PEOPLE - 1 }),
    }),
  )
  .map((w) => ({ ...w, memberships: w.memberships.filter((m) => m.end === null || m.start <= m.end), guardianships: w.guardianships.filter(([g, ww]) => g !== ww) }));

describe('who sees and who changes whom', () => {
  let t: TestApp;
  let personIds: number[];
  beforeAll(async () => {
    t = await buildTestApp();
    personIds = [];
    for (let i = 0; i < PEOPLE; i++) personIds.push((await t.addUser('demo', { username: `p${i}`, lastname: `P${i}` })).id);
  });
  afterAll(() => t.close());

  /** Stores the world: groups with their materialised paths, memberships, guardianships. */
  async function store(w: World): Promise<number[]> {
    const db = t.storage.tenantDb('demo');
    const now = toDbTimestamp(new Date());
    await db.deleteFrom('guardianships').execute();
    const { groupIds } = await replaceGroupTree(db, await t.rootGroupId('demo'), w.parents);
    for (const m of w.memberships) {
      await db
        .insertInto('memberships')
        .values({ person_id: personIds[m.person]!, group_id: groupIds[m.group]!, role_type: m.role, label: null, start_on: m.start, end_on: m.end, created_at: now, updated_at: now })
        .execute();
    }
    for (const [g, ward] of w.guardianships) {
      await db.insertInto('guardianships').values({ guardian_id: personIds[g]!, ward_id: personIds[ward]!, created_at: now }).execute();
    }
    return groupIds;
  }

  it('matches the plain reading for every person, in lists and one by one', async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        await store(w);
        const db = t.storage.tenantDb('demo');
        const access = await accessOf(db, personIds[w.caller]!, DAY);
        const listed = new Set(
          (await listVisiblePeople(db, access, { activeOn: DAY, sort: 'id' }, null, 1000)).map((row) => Number(row.id)),
        );
        const rights = await rightsToChange(db, access, personIds);
        // The rules before the parents' one (a parent is reached through their children).
        const seesDirectly = (p: number) => p === w.caller || isGuardian(w, p) || referenceHolds(w, p, 'read');
        for (let p = 0; p < PEOPLE; p++) {
          const id = personIds[p]!;
          const sees = seesDirectly(p) || wardsOf(w, p).some(seesDirectly);
          const unplaced = !w.memberships.some((m) => m.person === p && active(m));
          const writes = referenceHolds(w, p, 'write') || (unplaced && wardsOf(w, p).some((ward) => leadsWhere(w, ward)));
          expect(listed.has(id), `list, person ${p}`).toBe(sees);
          expect(await canSeePerson(db, access, id), `sees person ${p}`).toBe(sees);
          const right = await rightToChange(db, access, id);
          expect(right === 'full', `changes person ${p}`).toBe(writes);
          expect(right === 'profile', `guardian of person ${p}`).toBe(!writes && isGuardian(w, p));
          expect(rights.get(id), `all at once, person ${p}`).toBe(right);
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
