import { sql, type Expression, type SqlBool } from 'kysely';
import { onPostgres } from '../../db/dialect.js';
import { binaryText } from '../../db/collation.js';
import { CompiledQueries } from '../../db/compiled-queries.js';
import { statementChunks } from '../../db/statement-chunks.js';
import type { TenantDb, UserRow } from '../../db/types.js';
import type { SortKey } from '../../http/paging.js';
import { sortKey } from '../../lib/sort-key.js';
import { toDbTimestamp, normaliseDbTimestamp, type Day } from '../../lib/time.js';
import { lowerAscii } from '../../lib/validation.js';
import { visiblePeople, type Access, type PeopleQuery } from '../permissions/rules.js';
import { activeOn, groupAmong } from '../../db/conditions.js';

// The people resource reads users with memberships and groups (who is where, who sees whom).
// Writes to users go through the users module.

export interface PeopleSelection {
  /** Members of this group (path) on `activeOn`, or of its subtree with `below`. */
  group?: { id: number; path: string; below: boolean };
  roleType?: string;
  activeOn: Day;
  ids?: number[];
  q?: string;
  updatedSince?: Date;
  isVegetarian?: boolean;
  canSwimm?: boolean;
  sort: 'name' | '-updated_at' | 'id';
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function orderColumns(db: TenantDb, sort: PeopleSelection['sort']) {
  if (sort === 'id') return [sql.ref('p.id')];
  if (sort === '-updated_at') return [sql.ref('p.updated_at'), sql.ref('p.id')];
  return [sql.ref('p.lastname_key'), sql.ref('p.firstname_key'), binaryText(db, 'p.lastname'), binaryText(db, 'p.firstname'), sql.ref('p.id')];
}

/**
 * What a JSON page reads of each person: the id and version, whose JSON (and names) the page then
 * takes from memory (people/json-memory.ts). A page of 51 people so hands 153 values to
 * JavaScript instead of 1,173. The names a name-sorted page's cursor is made of come from that
 * memory too: read here, they were 204 strings made for the one row whose names the cursor takes
 * (SQLite: 92 -> 57 us a page of the benchmark's region, docs/benchmarks/design.md).
 */
export const PERSON_REF_COLUMNS = ['id', 'version', 'updated_at'] as const;
export type PersonRef = Pick<UserRow, (typeof PERSON_REF_COLUMNS)[number]>;

/** What the name order sorts by before the id: `orderColumns` for sort=name. */
export type SortNames = readonly [lastnameKey: string, firstnameKey: string, lastname: string, firstname: string];
export const sortNamesOf = (row: Pick<UserRow, 'lastname_key' | 'firstname_key' | 'lastname' | 'firstname'>): SortNames => [
  row.lastname_key,
  row.firstname_key,
  row.lastname,
  row.firstname,
];

/** Whether a list reads people's whole rows, or their `PersonRef`s only. */
export type PeopleColumns = 'rows' | 'refs';

/** A person's key in the sort; `names` (the person's `SortNames`) count for sort=name only. */
export function personSortKey(row: PersonRef, sort: PeopleSelection['sort'], names: SortNames): SortKey {
  if (sort === 'id') return [Number(row.id)];
  if (sort === '-updated_at') return [normaliseDbTimestamp(row.updated_at), Number(row.id)];
  return [...names, Number(row.id)];
}

/**
 * How a page sorted by name of a group's (or subtree's) members is read. Sorting the whole subtree
 * by name on every page costs what the subtree holds, so a large one is read the other way round:
 *
 * - `kept-order`: one range of `member_order` (each membership under its group and every group
 *   above it, in name order, kept by triggers) from the cursor: the page's rows (and the ended
 *   memberships among them), however large the group and the tenant. For a subtree's members
 *   with no other filter.
 * - `members-first`: the members' ids first, then their rows, sorted. Cheap while they are few.
 * - `name-order`: walk the people in list order (index `users_list_order`) from the cursor, keeping
 *   the members, until the page is full: about limit x people / members rows per page, so a page of
 *   a subtree that grows with the tenant costs the same however large both become.
 */
export type PeoplePlan = 'kept-order' | 'members-first' | 'name-order';

/** From this many active members on, a group's name-sorted pages walk the name order. */
export const NAME_ORDER_FROM_MEMBERS = 1000;

/**
 * Plans chosen lately, per tenant database and selection, for a minute: sizing a group on every
 * page would cost half as much as reading the page. A hint for speed only: a stale one makes a
 * page slower, never different.
 */
const recentPlans = new WeakMap<TenantDb, Map<string, { plan: PeoplePlan; until: number }>>();
const PLAN_HINT_MS = 60_000;
const PLAN_HINTS_KEPT = 1000;

/**
 * The plan for this selection: `kept-order` or `name-order` only for a name-sorted page of a group
 * whose members the caller all sees (where the caller sees only some of them, the share of the
 * walk that lands on someone to list is unknown, and could be a handful in the whole tenant);
 * `kept-order` for the members of a subtree on the caller's day with nothing else picking them,
 * else `name-order` for a large group.
 */
export async function choosePeoplePlan(db: TenantDb, access: Access, selection: PeopleSelection): Promise<PeoplePlan> {
  const { group, roleType, activeOn: day } = selection;
  if (selection.sort !== 'name' || group === undefined || selection.q !== undefined || selection.ids !== undefined) return 'members-first';
  if (!selectionImpliesVisibility(access, selection)) return 'members-first';
  // The kept order's index narrows on the group alone: a role type or the group's own members
  // (below=false) would be picked row by row from the whole subtree's, however few they are.
  const personFilters = selection.updatedSince !== undefined || selection.isVegetarian !== undefined || selection.canSwimm !== undefined;
  if (group.below && roleType === undefined && !personFilters) return 'kept-order';
  const key = `${group.path}|${group.below}|${roleType ?? ''}|${day}`;
  const hints = recentPlans.get(db) ?? new Map<string, { plan: PeoplePlan; until: number }>();
  recentPlans.set(db, hints);
  const now = Date.now();
  const hint = hints.get(key);
  if (hint !== undefined && hint.until > now) return hint.plan;
  // Counting stops at the threshold, so a large subtree costs the same to size as a middling one.
  const sample = membersOf(db, selection).limit(NAME_ORDER_FROM_MEMBERS).as('sample');
  const { n } = await db.selectFrom(sample).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  const plan: PeoplePlan = Number(n) >= NAME_ORDER_FROM_MEMBERS ? 'name-order' : 'members-first';
  if (hints.size >= PLAN_HINTS_KEPT) hints.clear();
  hints.set(key, { plan, until: now + PLAN_HINT_MS });
  return plan;
}

/**
 * The person ids (`fm.person_id`, with repeats) of the selection's group and role type on its day;
 * `ofPerson`: only those of the person with that id (a reference to the outer row). Then the
 * group and role type are matched as `+fm.group_id` and `fm.role_type || ''`, which no index
 * serves, so the test reads that person's few memberships, never the group's or role type's many
 * (SQLite would otherwise pick any of the three indexes).
 */
function membersOf(db: TenantDb, { group, roleType, activeOn: day }: PeopleSelection, ofPerson?: Expression<number>) {
  let members = db.selectFrom('memberships as fm').select('fm.person_id').where(activeOn('fm', day));
  if (roleType !== undefined) {
    members = members.where(ofPerson === undefined ? sql.ref<string>('fm.role_type') : sql<string>`${sql.ref('fm.role_type')} || ''`, '=', roleType);
  }
  if (ofPerson !== undefined) members = members.where('fm.person_id', '=', ofPerson);
  if (group !== undefined) {
    const groupId = ofPerson === undefined ? sql.ref<number>('fm.group_id') : sql<number>`+${sql.ref('fm.group_id')}`;
    members = group.below
      ? members.innerJoin('groups as fg', (join) => join.on(sql.ref('fg.id'), '=', groupId)).where(groupAmong('fg', [group.path], []))
      : members.where(groupId, '=', group.id);
  }
  return members;
}

/**
 * Keeps a correlated EXISTS a test of each row on PostgreSQL: a subquery with an OFFSET is never
 * turned into a semi-join. As a join, it read the group's whole membership list and sorted its
 * people for every page, with statistics old or new (test/modules/people/name-order-plan.test.ts):
 * a CSV export of a troop of 100,000 took 25 s, now 7.5 s. SQLite tests each row anyway.
 */
function eachRowTest<Q extends { offset(offset: Expression<number>): Q }>(db: TenantDb, subquery: Q): Q {
  return onPostgres(db) ? subquery.offset(sql.lit(0)) : subquery;
}

/**
 * Whether everyone the selection picks is visible anyway: its group lies where the caller reads,
 * on the caller's own day. The visibility condition is then left out of the query (it would test
 * each row a second time for what its membership already proves) and `groupStillReadable` takes
 * its place.
 */
function selectionImpliesVisibility(access: Access, { group, activeOn: day }: PeopleSelection): boolean {
  if (group === undefined || day !== access.day) return false;
  const readable = access.groupsWith('read');
  return readable.subtreePaths.some((path) => group.path.startsWith(path)) || (!group.below && readable.groupIds.includes(group.id));
}

/**
 * The group is still where the caller reads, by its path as the query finds it: a constant
 * subquery, run once. A group moved out of the caller's reach since the request read it (a CSV
 * export streams for seconds) then lists no one.
 */
function groupStillReadable(db: TenantDb, readable: ReadableGroups, group: { id: number; below: boolean }) {
  const readableAsSelected = groupAmong('sg', readable.subtreePaths, group.below ? [] : readable.groupIds);
  return db.selectFrom('groups as sg').select(sql.lit(1).as('one')).where('sg.id', '=', group.id).where(readableAsSelected);
}

type ReadableGroups = ReturnType<Access['groupsWith']>;

/** A page of people as whole rows, or as `PersonRef`s. */
export type PeopleRow<C extends PeopleColumns> = C extends 'rows' ? UserRow : PersonRef;

/** One page of the people the caller sees, by the selection, after the row with key `after`. */
export function listVisiblePeople(db: TenantDb, access: Access, selection: PeopleSelection, after: SortKey | null, limit: number, plan?: PeoplePlan): Promise<UserRow[]> {
  return listVisiblePeopleAs(db, access, selection, after, limit, 'rows', plan);
}

/** The same page as `listVisiblePeople`, with the columns asked for. */
export async function listVisiblePeopleAs<C extends PeopleColumns>(
  db: TenantDb,
  access: Access,
  selection: PeopleSelection,
  after: SortKey | null,
  limit: number,
  columns: C,
  plan?: PeoplePlan,
): Promise<PeopleRow<C>[]> {
  const chosen = plan ?? (await choosePeoplePlan(db, access, selection));
  const { group } = selection;
  if (chosen === 'kept-order' && group !== undefined) {
    const { id, below } = group;
    const inputs: KeptOrderPage = { groupId: id, below, roleType: selection.roleType ?? null, day: selection.activeOn, readable: access.groupsWith('read'), limit, fromCursor: after !== null, columns };
    return (await db.executeQuery<PeopleRow<C>>(keptOrderPages.compile(db, inputs, after ?? []))).rows;
  }
  const base = db.selectFrom('users as p');
  let query = columns === 'rows' ? base.selectAll('p') : base.select(PERSON_REF_COLUMNS.map((column) => `p.${column}` as const));
  query =
    group !== undefined && selectionImpliesVisibility(access, selection)
      ? query.where((eb) => eb.exists(groupStillReadable(db, access.groupsWith('read'), group)))
      : query.where((eb) => visiblePeople(eb as PeopleQuery, access));
  if (selection.group !== undefined || selection.roleType !== undefined) {
    query =
      chosen === 'name-order'
        ? // Correlated: a test of each row the walk reaches.
          query.where((eb) => eb.exists(eachRowTest(db, membersOf(db, selection, sql.ref<number>('p.id')))))
        : // Not correlated with p: read once per query.
          query.where('p.id', 'in', membersOf(db, selection));
  }
  if (selection.ids !== undefined) query = query.where('p.id', 'in', selection.ids.length > 0 ? selection.ids : [0]);
  if (selection.q !== undefined) {
    const names = `%${escapeLike(sortKey(selection.q))}%`;
    const logins = `%${escapeLike(lowerAscii(selection.q))}%`;
    query = query.where((eb) => {
      const like = (expression: Expression<unknown>, pattern: string): Expression<SqlBool> => sql<SqlBool>`${expression} like ${pattern} escape '\\'`;
      return eb.or([
        like(sql.ref('p.lastname_key'), names),
        like(sql.ref('p.firstname_key'), names),
        like(lowerLogin(db, 'p.username'), logins),
        like(lowerLogin(db, 'p.email'), logins),
      ]);
    });
  }
  if (selection.updatedSince !== undefined) query = query.where('p.updated_at', '>=', toDbTimestamp(selection.updatedSince));
  if (selection.isVegetarian !== undefined) query = query.where(sql<SqlBool>`p.is_vegetarian = ${sql.lit(selection.isVegetarian)}`);
  if (selection.canSwimm !== undefined) query = query.where(sql<SqlBool>`p.can_swimm = ${sql.lit(selection.canSwimm)}`);

  const order = orderColumns(db, selection.sort);
  const descending = selection.sort === '-updated_at';
  if (after) {
    const comparison = descending ? sql`<` : sql`>`;
    query = query.where(sql<SqlBool>`(${sql.join(order)}) ${comparison} (${sql.join(after as unknown[])})`);
  }
  for (const column of order) query = query.orderBy(column, descending ? 'desc' : 'asc');
  return (await query.limit(limit + 1).execute()) as PeopleRow<C>[];
}

const KEPT_ORDER = ['lastname_key', 'firstname_key', 'lastname', 'firstname', 'person_id'] as const;

/** What a page in the kept order depends on, but for its cursor: the key of its compiled query. */
type KeptOrderPage = {
  groupId: number;
  below: boolean;
  roleType: string | null;
  day: Day;
  readable: ReadableGroups;
  limit: number;
  fromCursor: boolean;
  columns: PeopleColumns;
};

/**
 * A name-sorted page of the group's members (`kept-order`): the keys of the page from one range of
 * index `member_order_list` (a person with two memberships there is grouped into one), then, for
 * whole rows, their rows. Its names are stored binary on both dialects, so the order and the
 * cursor are those of `orderColumns`. Only for selections whose members the caller all sees
 * (choosePeoplePlan). `after`: the cursor's key, or no values for the first page.
 */
function keptOrderPage(db: TenantDb, page: KeptOrderPage, after: readonly unknown[]) {
  const keyColumns = KEPT_ORDER.map((column) => `o.${column}` as const);
  let range = db
    .selectFrom('member_order as o')
    .where('o.group_id', '=', page.groupId)
    .where(activeOn('o', page.day))
    .where((eb) => eb.exists(groupStillReadable(db, page.readable, { id: page.groupId, below: page.below })));
  if (!page.below) range = range.where('o.direct', '=', 1);
  if (page.roleType !== null) range = range.where('o.role_type', '=', page.roleType);
  if (page.fromCursor) range = range.where(sql<SqlBool>`(${sql.join(keyColumns.map((column) => sql.ref(column)))}) > (${sql.join([...after])})`);
  range = range.groupBy(keyColumns);
  for (const column of keyColumns) range = range.orderBy(column);
  // The limit as a literal (the shape's key holds it anyway): SQLite answered the same page in
  // 54 us instead of 88 when it knew the limit while preparing the statement.
  if (!Number.isSafeInteger(page.limit) || page.limit < 1) throw new Error(`a page's limit is a whole number from 1, not ${page.limit}`);
  range = range.limit(sql.lit(page.limit + 1));
  if (page.columns === 'refs') {
    // The references are in the index: the page reads nothing else. A person's rows all hold their
    // version and updated_at (kept in the person's transaction), so max() is any one of them;
    // grouped by them instead, the groups would not follow the index (days and role type lie
    // between), and both dialects sorted the whole range on every page.
    return range.select((eb) => ['o.person_id as id', eb.fn.max('o.version').as('version'), eb.fn.max('o.updated_at').as('updated_at')]);
  }
  const pageKeys = range.select(keyColumns).as('k');
  // PostgreSQL joins the page's rows by a scan of all users where that looks cheaper than as many
  // index lookups (a tenant of 10,000: the page took 1.9 ms against 0.5); a LATERAL subquery with a
  // LIMIT is looked up row by row. SQLite looks them up by rowid anyway, and knows no LATERAL.
  const joined = onPostgres(db)
    ? db.selectFrom(pageKeys).innerJoinLateral((eb) => eb.selectFrom('users as u').selectAll('u').whereRef('u.id', '=', 'k.person_id').limit(1).as('p'), (join) => join.onTrue())
    : db.selectFrom(pageKeys).innerJoin('users as p', 'p.id', 'k.person_id');
  let rows = joined.selectAll('p');
  for (const column of KEPT_ORDER) rows = rows.orderBy(`k.${column}`);
  return rows;
}

/**
 * Pages in the kept order, compiled once per shape: a walk through a list asks the same query with
 * another cursor each time, and building it again cost more CPU than SQLite spent answering it.
 */
const keptOrderPages = new CompiledQueries(keptOrderPage, 64);

/** lower() of ASCII letters only, alike on both dialects (as the unique indexes compare). */
function lowerLogin(db: TenantDb, column: string) {
  return sql`lower(${binaryText(db, column)})`;
}

export const findPerson = (db: TenantDb, id: number): Promise<UserRow | undefined> =>
  db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

/** The person, when the caller sees them: one statement, whoever they are (the time of a 404 tells nothing). */
export const findVisiblePerson = (db: TenantDb, access: Access, id: number): Promise<UserRow | undefined> =>
  db
    .selectFrom('users as p')
    .selectAll('p')
    .where('p.id', '=', id)
    .where((eb) => visiblePeople(eb as unknown as PeopleQuery, access))
    .executeTakeFirst();

/**
 * The person with this e-mail address (ignoring ASCII case) whom the caller may link as a guardian:
 * one they see, or one without a membership that has not ended on `day`. One statement.
 */
export const findLinkableByEmail = (db: TenantDb, access: Access, email: string): Promise<UserRow | undefined> =>
  db
    .selectFrom('users as p')
    .selectAll('p')
    .where(lowerLogin(db, 'p.email'), '=', lowerAscii(email))
    .where((eb) =>
      eb.or([
        visiblePeople(eb as unknown as PeopleQuery, access),
        eb.not(
          eb.exists(
            eb
              .selectFrom('memberships as um')
              .select('um.id')
              .whereRef('um.person_id', '=', 'p.id')
              .where((inner) => inner.or([inner('um.end_on', 'is', null), inner('um.end_on', '>=', access.day)])),
          ),
        ),
      ]),
    )
    .executeTakeFirst();

/** The ward's guardians that the caller sees (lists hold only visible people). */
export const listGuardians = (db: TenantDb, access: Access, wardId: number): Promise<UserRow[]> =>
  db
    .selectFrom('users as p')
    .innerJoin('guardianships as g', 'g.guardian_id', 'p.id')
    .selectAll('p')
    .where('g.ward_id', '=', wardId)
    .where((eb) => visiblePeople(eb as unknown as PeopleQuery, access))
    .orderBy('p.lastname_key')
    .orderBy('p.firstname_key')
    .orderBy('p.id')
    .execute();

export const listWards = (db: TenantDb, guardianId: number): Promise<UserRow[]> =>
  db
    .selectFrom('users as p')
    .innerJoin('guardianships as g', 'g.ward_id', 'p.id')
    .selectAll('p')
    .where('g.guardian_id', '=', guardianId)
    .orderBy('p.lastname_key')
    .orderBy('p.firstname_key')
    .orderBy('p.id')
    .execute();

/** The wards of `guardianId` whom the caller sees, in name order (a person's page). */
export const listWardsSeenBy = (db: TenantDb, access: Access, guardianId: number): Promise<UserRow[]> =>
  db
    .selectFrom('users as p')
    .innerJoin('guardianships as g', 'g.ward_id', 'p.id')
    .selectAll('p')
    .where('g.guardian_id', '=', guardianId)
    .where((eb) => visiblePeople(eb as unknown as PeopleQuery, access))
    .orderBy('p.lastname_key')
    .orderBy('p.firstname_key')
    .orderBy('p.id')
    .execute();

/**
 * The guardians of these wards (a page of a list) that the caller sees, by ward, each ward's in
 * name order: what the vCards' RELATED lines name, and whose short cards follow. A listed parent
 * may be seen only through a ward, and that one level does not reach the parent's own guardians.
 * One statement per ROWS_PER_STATEMENT wards, never one per person.
 */
export async function guardianIdsOfWards(db: TenantDb, access: Access, wardIds: readonly number[]): Promise<Map<number, number[]>> {
  const byWard = new Map<number, number[]>();
  for (const part of statementChunks(wardIds)) {
    const rows = await db
      .selectFrom('guardianships as g')
      .innerJoin('users as p', 'p.id', 'g.guardian_id')
      .select(['g.ward_id', 'g.guardian_id'])
      .where('g.ward_id', 'in', part)
      .where((eb) => visiblePeople(eb as unknown as PeopleQuery, access))
      .orderBy('p.lastname_key')
      .orderBy('p.firstname_key')
      .orderBy('p.id')
      .execute();
    for (const row of rows) {
      const wardId = Number(row.ward_id);
      byWard.set(wardId, [...(byWard.get(wardId) ?? []), Number(row.guardian_id)]);
    }
  }
  return byWard;
}

/** What a guardian's short vCard shows of a person. */
export type GuardianContact = Pick<UserRow, 'id' | 'firstname' | 'lastname' | 'email' | 'phonenumber' | 'phonenumber_mobile'>;

/** What a guardian's short vCard shows of these people, in name order. */
export async function guardianContactsOf(db: TenantDb, ids: readonly number[]): Promise<GuardianContact[]> {
  const found: GuardianContact[] = [];
  for (const part of statementChunks(ids)) {
    found.push(
      ...(await db
        .selectFrom('users as p')
        .select(['p.id', 'p.firstname', 'p.lastname', 'p.email', 'p.phonenumber', 'p.phonenumber_mobile'])
        .where('p.id', 'in', part)
        .orderBy('p.lastname_key')
        .orderBy('p.firstname_key')
        .orderBy('p.id')
        .execute()),
    );
  }
  return found;
}

export const insertGuardianship = (db: TenantDb, wardId: number, guardianId: number, now: string) =>
  db.insertInto('guardianships').values({ ward_id: wardId, guardian_id: guardianId, created_at: now }).execute();

export async function deleteGuardianship(db: TenantDb, wardId: number, guardianId: number): Promise<boolean> {
  const result = await db.deleteFrom('guardianships').where('ward_id', '=', wardId).where('guardian_id', '=', guardianId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** What goes with a person's row when it is erased (cascade), as the change records name it. */
export async function rowsErasedWith(db: TenantDb, id: number) {
  const [memberships, guardianships, participations] = await Promise.all([
    db.selectFrom('memberships').select('id').where('person_id', '=', id).execute(),
    db.selectFrom('guardianships').select(['ward_id', 'guardian_id']).where((eb) => eb.or([eb('ward_id', '=', id), eb('guardian_id', '=', id)])).execute(),
    db.selectFrom('participations').select('id').where('person_id', '=', id).execute(),
  ]);
  return {
    membershipIds: memberships.map((row) => Number(row.id)),
    guardianships: guardianships.map((row) => ({ wardId: Number(row.ward_id), guardianId: Number(row.guardian_id) })),
    participationIds: participations.map((row) => Number(row.id)),
  };
}

/** Erasure: the person, their tokens and calendar feed; memberships and guardianships go with the row (cascade). */
export async function erasePersonRows(db: TenantDb, id: number): Promise<void> {
  await db.deleteFrom('personal_access_tokens').where('tokenable_id', '=', id).execute();
  // The feed belongs to the calendars module, but it is deleted here, as the tokens are, rather than
  // by a function handed in from the app: every erasure passes through this one place, inside its
  // transaction, and a path that forgot to hand the function in would leave a secret address alive.
  await db.deleteFrom('calendar_feeds').where('person_id', '=', id).execute();
  await db.deleteFrom('users').where('id', '=', id).execute();
}

// The CSV import looks people up by many e-mail addresses or names at once.

/** The people with these e-mail addresses (given lowercased as lowerAscii does), in any case. */
export async function findPeopleByEmails(db: TenantDb, lowerEmails: readonly string[]): Promise<UserRow[]> {
  const found: UserRow[] = [];
  for (const part of statementChunks(lowerEmails)) {
    found.push(...(await db.selectFrom('users as p').selectAll('p').where(lowerLogin(db, 'p.email'), 'in', part).execute()));
  }
  return found;
}

export async function findPeopleByIds(db: TenantDb, ids: readonly number[]): Promise<UserRow[]> {
  const found: UserRow[] = [];
  for (const part of statementChunks(ids)) found.push(...(await db.selectFrom('users').selectAll().where('id', 'in', part).execute()));
  return found;
}

/** Who holds an active membership in the group on `day`: their names and birthday, to match rows by. */
export function activeMemberNames(db: TenantDb, groupId: number, day: Day) {
  return db
    .selectFrom('users as p')
    .select(['p.id', 'p.firstname', 'p.lastname', 'p.birthday'])
    .where((eb) =>
      eb.exists(eb.selectFrom('memberships as m').select(sql.lit(1).as('one')).whereRef('m.person_id', '=', 'p.id').where('m.group_id', '=', groupId).where(activeOn('m', day))),
    )
    .execute();
}

/** The ids of the people with an active membership of this role type in the group on `day`. */
export async function activeRoleHolderIds(db: TenantDb, groupId: number, roleType: string, day: Day): Promise<Set<number>> {
  const rows = await db
    .selectFrom('memberships as m')
    .select('m.person_id')
    .where('m.group_id', '=', groupId)
    .where('m.role_type', '=', roleType)
    .where(activeOn('m', day))
    .execute();
  return new Set(rows.map((row) => Number(row.person_id)));
}

/** The ids of the people whose membership of this role type in the group has not ended before `day` (active or future). */
export async function unendedRoleHolderIds(db: TenantDb, groupId: number, roleType: string, day: Day): Promise<Set<number>> {
  const rows = await db
    .selectFrom('memberships as m')
    .select('m.person_id')
    .where('m.group_id', '=', groupId)
    .where('m.role_type', '=', roleType)
    .where((eb) => eb.or([eb('m.end_on', 'is', null), eb('m.end_on', '>=', day)]))
    .execute();
  return new Set(rows.map((row) => Number(row.person_id)));
}
