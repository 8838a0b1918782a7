import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sortKey } from '../../src/lib/sort-key.js';
import { toDbTimestamp } from '../../src/lib/time.js';
import * as keepMembersInListOrder from '../../src/db/migrations/tenant/2026-11-25T10-00-00-keep-members-in-list-order.js';
import * as keepPersonVersionInListOrder from '../../src/db/migrations/tenant/2026-11-26T10-00-00-keep-person-version-in-list-order.js';
import { noteChange, transact } from '../../src/recording/recorder.js';
import { movePaths } from '../../src/modules/groups/queries.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { replaceGroupTree } from '../helpers/group-tree.js';

/**
 * `member_order` (kept by triggers) holds, after any sequence of writes, exactly what its
 * definition gives: each membership under its own group and every group above it, with its
 * person's sort keys, names, version and updated_at, its days and role type, and whether the
 * group is its own. The writes are those the service makes: memberships granted, changed, ended
 * and deleted, people renamed or otherwise changed, subtrees moved (one statement for all their
 * paths), people erased.
 */
const PEOPLE = 6;
const NAMES = ['Müller', 'Meier', 'Émery', 'de la Cruz', "O'Brien", 'Zoé'];
const ROLE_TYPES = ['admin', 'leader', 'member'];
const day = fc.integer({ min: 10, max: 18 }).map((d) => `2026-02-${String(d)}`);

type Write =
  | { kind: 'grant'; person: number; group: number; role: string; start: string }
  | { kind: 'change'; membership: number; group: number; role: string; start: string; end: string | null }
  | { kind: 'delete'; membership: number }
  | { kind: 'rename'; person: number; lastname: string; firstname: string }
  | { kind: 'edit'; person: number; city: string }
  | { kind: 'move'; group: number; parent: number };

const grant = fc.record({ kind: fc.constant('grant' as const), person: fc.nat(PEOPLE - 1), group: fc.nat(20), role: fc.constantFrom(...ROLE_TYPES), start: day });
const write: fc.Arbitrary<Write> = fc.oneof(
  grant,
  fc.record({ kind: fc.constant('change' as const), membership: fc.nat(40), group: fc.nat(20), role: fc.constantFrom(...ROLE_TYPES), start: day, end: fc.option(day, { nil: null }) }),
  fc.record({ kind: fc.constant('delete' as const), membership: fc.nat(40) }),
  fc.record({ kind: fc.constant('rename' as const), person: fc.nat(PEOPLE - 1), lastname: fc.constantFrom(...NAMES), firstname: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('move' as const), group: fc.nat(20), parent: fc.nat(20) }),
  fc.record({ kind: fc.constant('edit' as const), person: fc.nat(PEOPLE - 1), city: fc.constantFrom('Bern', 'Genève') }),
);
const tree = fc.integer({ min: 2, max: 8 }).chain((size) =>
  fc.tuple(...Array.from({ length: size }, (_, i) => (i === 0 ? fc.constant(-1) : fc.integer({ min: 0, max: i - 1 })))),
);

describe('member_order', () => {
  let t: TestApp;
  let personIds: number[];
  beforeAll(async () => {
    t = await buildTestApp();
    personIds = [];
    for (let i = 0; i < PEOPLE; i++) personIds.push(Number((await t.addUser('demo', { username: `p${i}` })).id));
  });
  afterAll(() => t.close());

  const db = () => t.storage.tenantDb('demo');

  /** The table as its definition gives it, from memberships, groups and users. */
  async function expected(): Promise<string[]> {
    const groups = new Map((await db().selectFrom('groups').select(['id', 'path']).execute()).map((g) => [Number(g.id), g.path]));
    const people = new Map((await db().selectFrom('users').selectAll().execute()).map((u) => [Number(u.id), u]));
    const rows: string[] = [];
    for (const m of await db().selectFrom('memberships').selectAll().execute()) {
      const person = people.get(Number(m.person_id))!;
      for (const above of groups.get(Number(m.group_id))!.split('/').filter(Boolean).map(Number)) {
        rows.push(
          JSON.stringify([
            above, Number(m.id), Number(m.person_id), person.lastname_key, person.firstname_key, person.lastname, person.firstname,
            m.start_on, m.end_on, m.role_type, above === Number(m.group_id) ? 1 : 0, Number(person.version), person.updated_at,
          ]),
        );
      }
    }
    return rows.sort();
  }

  async function actual(): Promise<string[]> {
    const rows = await db().selectFrom('member_order').selectAll().execute();
    return rows
      .map((r) =>
        JSON.stringify([
          Number(r.group_id), Number(r.membership_id), Number(r.person_id), r.lastname_key, r.firstname_key, r.lastname, r.firstname,
          r.start_on, r.end_on, r.role_type, Number(r.direct), Number(r.version), r.updated_at,
        ]),
      )
      .sort();
  }

  async function apply(w: Write): Promise<void> {
    const now = toDbTimestamp(new Date());
    const groups = await db().selectFrom('groups').select(['id', 'path']).orderBy('id').execute();
    const memberships = await db().selectFrom('memberships').select('id').orderBy('id').execute();
    const group = (i: number) => groups[i % groups.length]!;
    const membership = (i: number) => (memberships.length === 0 ? undefined : Number(memberships[i % memberships.length]!.id));
    switch (w.kind) {
      case 'grant':
        await t.grant('demo', personIds[w.person]!, Number(group(w.group).id), w.role, { startOn: w.start });
        return;
      case 'change': {
        const id = membership(w.membership);
        if (id === undefined) return;
        await db()
          .updateTable('memberships')
          .set({ group_id: Number(group(w.group).id), role_type: w.role, start_on: w.start, end_on: w.end, updated_at: now })
          .where('id', '=', id)
          .execute();
        return;
      }
      case 'delete': {
        const id = membership(w.membership);
        if (id !== undefined) await db().deleteFrom('memberships').where('id', '=', id).execute();
        return;
      }
      case 'rename':
        await db()
          .updateTable('users')
          .set({ lastname: w.lastname, firstname: w.firstname, lastname_key: sortKey(w.lastname), firstname_key: sortKey(w.firstname), updated_at: now })
          .where('id', '=', personIds[w.person]!)
          .execute();
        return;
      case 'edit':
        // As the service writes a person: a new version and updated_at with the change.
        await db()
          .updateTable('users')
          .set((eb) => ({ city: w.city, updated_at: now, version: eb('version', '+', 1) }))
          .where('id', '=', personIds[w.person]!)
          .execute();
        return;
      case 'move': {
        const moving = group(w.group);
        const parent = group(w.parent);
        // Never the root, never into its own subtree (the service refuses both).
        if (Number(moving.id) === (await t.rootGroupId('demo')) || parent.path.startsWith(moving.path)) return;
        await db().updateTable('groups').set({ parent_id: Number(parent.id) }).where('id', '=', Number(moving.id)).execute();
        await movePaths(db(), moving.path, `${parent.path}${Number(moving.id)}/`, now);
        return;
      }
    }
  }

  it('holds what its definition gives after any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(tree, fc.array(grant, { minLength: 1, maxLength: 12 }), fc.array(write, { maxLength: 25 }), async (parents, grants, writes) => {
        await replaceGroupTree(db(), await t.rootGroupId('demo'), parents);
        for (const w of [...grants, ...writes]) await apply(w);
        expect(await actual()).toEqual(await expected());
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('loses a person\'s rows with the person (erasure cascades through the memberships)', async () => {
    await replaceGroupTree(db(), await t.rootGroupId('demo'), [-1, 0, 1]);
    const groups = await db().selectFrom('groups').select('id').orderBy('id').execute();
    const doomed = Number((await t.addUser('demo', { username: 'doomed' })).id);
    await t.grant('demo', doomed, Number(groups[2]!.id), 'member', { startOn: '2026-01-01' });
    await t.grant('demo', personIds[0]!, Number(groups[2]!.id), 'member', { startOn: '2026-01-01' });
    expect((await db().selectFrom('member_order').select('person_id').where('person_id', '=', doomed).execute()).length).toBe(3);
    await db().deleteFrom('users').where('id', '=', doomed).execute();
    expect((await db().selectFrom('member_order').select('person_id').where('person_id', '=', doomed).execute()).length).toBe(0);
    expect(await actual()).toEqual(await expected());
    expect((await actual()).length).toBe(3);
  });

  it('is filled from the memberships already there when the migrations run (and their downs remove it)', async () => {
    const { groupIds } = await replaceGroupTree(db(), await t.rootGroupId('demo'), [-1, 0, 1, 1]);
    for (const [i, group] of groupIds.entries()) await t.grant('demo', personIds[i]!, group, 'member', { startOn: '2026-01-01' });
    // In a transaction, as the migrator runs it.
    await db().transaction().execute((trx) => keepPersonVersionInListOrder.down(trx));
    const columnsNow = async () => (await db().introspection.getTables()).find((table) => table.name === 'member_order')?.columns.map((column) => column.name);
    expect(await columnsNow()).not.toContain('version');
    await db().transaction().execute((trx) => keepMembersInListOrder.down(trx));
    expect(await columnsNow()).toBeUndefined();
    await db().transaction().execute((trx) => keepMembersInListOrder.up(trx));
    // A person changed between the two: the second copies what the person is now.
    await db().updateTable('users').set((eb) => ({ city: 'Chur', version: eb('version', '+', 1) })).where('id', '=', personIds[1]!).execute();
    await db().transaction().execute((trx) => keepPersonVersionInListOrder.up(trx));
    expect((await actual()).length).toBe(1 + 2 + 3 + 3);
    expect(await actual()).toEqual(await expected());
    // And its triggers are back, for memberships and for people.
    await t.grant('demo', personIds[4]!, groupIds[3]!, 'leader', { startOn: '2026-01-01' });
    expect(await actual()).toEqual(await expected());
    await db().updateTable('users').set((eb) => ({ lastname: 'Zwahlen', lastname_key: sortKey('Zwahlen'), version: eb('version', '+', 1) })).where('id', '=', personIds[4]!).execute();
    expect(await actual()).toEqual(await expected());
  });

  // PostgreSQL runs writers side by side, and a trigger cannot see what another has not committed:
  // there the triggers run at the commit, one writer after the other (each takes the change
  // sequence at its end, as every write of the service does through transact). A grant, a
  // deletion or a rename beside a move, a person changed beside a grant of theirs: whichever
  // commits first, the table ends as its definition.
  it.runIf(process.env.DATABASE_URL)('ends right when grants, deletions, moves, renames and edits run side by side (PostgreSQL)', async () => {
    const { groupIds } = await replaceGroupTree(db(), await t.rootGroupId('demo'), [-1, 0, 0, 1]);
    const pathOf = async (id: number) => (await db().selectFrom('groups').select('path').where('id', '=', id).executeTakeFirstOrThrow()).path;
    const now = toDbTimestamp(new Date());
    /** A write as the service makes it: in transact, with a change to record. */
    const asService = (work: (trx: ReturnType<typeof db>) => Promise<unknown>) =>
      transact(db(), null, async (trx) => {
        await work(trx);
        noteChange(trx, { entity: 'group', entityId: 0, action: 'updated' });
      });
    /** Runs `first` as the service would, held open until `second`, started beside it, has had time to run. */
    const sideBySide = async (first: (trx: ReturnType<typeof db>) => Promise<unknown>, second: (trx: ReturnType<typeof db>) => Promise<unknown>) => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let secondDone: Promise<unknown> = Promise.resolve();
      await asService(async (trx) => {
        await first(trx);
        secondDone = asService(second);
        setTimeout(release, 300);
        await held;
      });
      await secondDone;
    };
    const grant = (personId: number, groupId: number) => (trx: ReturnType<typeof db>) =>
      trx
        .insertInto('memberships')
        .values({ person_id: personId, group_id: groupId, role_type: 'member', label: null, start_on: '2026-01-01', end_on: null, created_at: now, updated_at: now })
        .execute();
    const move = (groupId: number, parentId: number) => async (trx: ReturnType<typeof db>) => movePaths(trx, await pathOf(groupId), `${await pathOf(parentId)}${groupId}/`, now);
    const rename = (personId: number, lastname: string) => (trx: ReturnType<typeof db>) =>
      trx.updateTable('users').set({ lastname, lastname_key: sortKey(lastname), updated_at: now }).where('id', '=', personId).execute();
    const edit = (personId: number) => (trx: ReturnType<typeof db>) =>
      trx.updateTable('users').set((eb) => ({ city: 'Sion', updated_at: toDbTimestamp(new Date()), version: eb('version', '+', 1) })).where('id', '=', personId).execute();
    // A grant in group 3 beside a move of group 1 (its parent) below group 2, and the other way round.
    await sideBySide(grant(personIds[0]!, groupIds[3]!), move(groupIds[1]!, groupIds[2]!));
    expect(await actual()).toEqual(await expected());
    await sideBySide(move(groupIds[1]!, groupIds[0]!), grant(personIds[1]!, groupIds[3]!));
    expect(await actual()).toEqual(await expected());
    // A rename of a member beside a move, both ways round.
    await sideBySide(rename(personIds[0]!, 'Zoé'), move(groupIds[1]!, groupIds[2]!));
    expect(await actual()).toEqual(await expected());
    await sideBySide(move(groupIds[1]!, groupIds[0]!), rename(personIds[1]!, 'Keller'));
    expect(await actual()).toEqual(await expected());
    // A membership deleted beside a move, both ways round.
    const [first, second] = await db().selectFrom('memberships').select('id').where('group_id', '=', groupIds[3]!).orderBy('id').execute();
    await sideBySide((trx) => trx.deleteFrom('memberships').where('id', '=', first!.id).execute(), move(groupIds[1]!, groupIds[2]!));
    expect(await actual()).toEqual(await expected());
    await sideBySide(move(groupIds[1]!, groupIds[0]!), (trx) => trx.deleteFrom('memberships').where('id', '=', second!.id).execute());
    expect(await actual()).toEqual(await expected());
    expect((await actual()).length).toBe(0);
    // A person changed beside a grant of theirs, both ways round.
    await sideBySide(edit(personIds[2]!), grant(personIds[2]!, groupIds[1]!));
    expect(await actual()).toEqual(await expected());
    await sideBySide(grant(personIds[2]!, groupIds[2]!), edit(personIds[2]!));
    expect(await actual()).toEqual(await expected());
    expect((await actual()).length).toBe(2 + 2);
  });

  // A person changed with SQL behind the service's back (a typo fixed in psql) takes no turn of its
  // own; its trigger takes one, so it waits for a grant of theirs that is committing and then reads
  // the grant's rows. Here the grant's trigger runs early (set constraints all immediate) and reads
  // the person before the change; the change is made while the grant stays open.
  it.runIf(process.env.DATABASE_URL)('ends right when a person is changed with SQL while a grant of theirs commits (PostgreSQL)', async () => {
    const { groupIds } = await replaceGroupTree(db(), await t.rootGroupId('demo'), [-1, 0]);
    const now = toDbTimestamp(new Date());
    let edited: Promise<unknown> = Promise.resolve();
    await db()
      .transaction()
      .execute(async (trx) => {
        await trx
          .insertInto('memberships')
          .values({ person_id: personIds[3]!, group_id: groupIds[1]!, role_type: 'member', label: null, start_on: '2026-01-01', end_on: null, created_at: now, updated_at: now })
          .execute();
        await trx.updateTable('change_sequence').set((eb) => ({ last_seq: eb('last_seq', '+', 1) })).where('id', '=', 1).execute();
        await sql`set constraints all immediate`.execute(trx);
        edited = db().updateTable('users').set((eb) => ({ city: 'Thun', version: eb('version', '+', 1) })).where('id', '=', personIds[3]!).execute();
        // The grant stays open until the change waits for it (its trigger for the sequence row).
        expect(await someoneWaitsForALock()).toBe(true);
      });
    await edited;
    expect(await actual()).toEqual(await expected());
    expect((await actual()).length).toBe(2);
  });

  /** Whether another connection to this database comes to wait for a lock within 10 s. */
  async function someoneWaitsForALock(): Promise<boolean> {
    for (const started = Date.now(); Date.now() - started < 10_000; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db());
      if (Number(rows[0]!.n) > 0) return true;
    }
    return false;
  }
});
