import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import { onPostgres } from '../../db/dialect.js';
import { binaryText } from '../../db/collation.js';
import { activeOn, groupAmong } from '../../db/conditions.js';
import type { MembershipRow, TenantDatabase, TenantDb, UserRow } from '../../db/types.js';
import type { SortKey } from '../../http/paging.js';
import { sortKey } from '../../lib/sort-key.js';
import type { Day } from '../../lib/time.js';
import { lowerAscii } from '../../lib/validation.js';
import { PERMISSIONS, type Permission } from '../permissions/levels.js';
import { visiblePeople, type Access, type PeopleQuery } from '../permissions/rules.js';

// The members of a group read `member_order` (each membership under its group and every group
// above it, in name order, with its dates and role type: kept by triggers, see the migration
// keep-members-in-list-order), then the people's rows and their selected memberships. A page is
// three statements at most, whatever it holds: the page of people, their memberships, and on the
// first page the count.

export type MemberSort = 'name' | '-name' | 'birthday' | '-birthday' | 'role';

/** What GET /groups/{id}/members lists: the people with a selected membership, and those memberships. */
export interface MemberSelection {
  group: { id: number; path: string };
  /** The group's whole subtree (the group itself included), not the group alone. */
  below: boolean;
  /** Memberships active on this day; null: every membership, ended and future ones too. */
  activeOn: Day | null;
  roleType?: string;
  q?: string;
  /** The caller, whose visibility rule picks the people; null when everyone selected is visible anyway. */
  seenBy: Access | null;
  sort: MemberSort;
}

/** A person of a page, with the value that orders them before their names (birthday and role sorts). */
export type MemberRow = UserRow & { sort_value?: string | number };

/** A selected membership with its group's name and its role type's permission. */
export type SelectedMembershipRow = MembershipRow & { group_name: string; permission: Permission };

const NAME_COLUMNS = ['lastname_key', 'firstname_key', 'lastname', 'firstname'] as const;
/** The name order's columns in `member_order`, as the index `member_order_list` holds them after the group. */
const KEPT_ORDER = ['o.lastname_key', 'o.firstname_key', 'o.lastname', 'o.firstname', 'o.person_id'] as const;

/**
 * Birthdays as numbers (2014-03-04 -> 20140304) so that one ascending key orders them both ways:
 * negated for `-birthday`. An unknown birthday takes a key past every real one, in both directions.
 */
const UNKNOWN_BIRTHDAY_FIRST_TO_LAST = 100_000_000;

/**
 * A role type's strength as one text that sorts strongest first: the rank of its permission
 * (admin 0 ... none 3), then its key. The smallest over a person's memberships names their
 * strongest one (highest permission, then smallest key). Compared code point by code point.
 */
function strengthOf(db: TenantDb, permission: string, roleType: string): RawBuilder<string> {
  const ranks = PERMISSIONS.map((name, index) => sql`when ${sql.lit(name)} then ${sql.lit(String(PERMISSIONS.length - 1 - index))}`);
  const text = sql`(case ${sql.ref(permission)} ${sql.join(ranks, sql` `)} end || ${sql.ref(roleType)})`;
  return onPostgres(db) ? sql<string>`${text} collate "C"` : sql<string>`${text}`;
}

function birthdayKey(descending: boolean): RawBuilder<number> {
  const asNumber = sql`cast(replace(p.birthday, '-', '') as integer)`;
  return descending ? sql<number>`coalesce(-${asNumber}, 0)` : sql<number>`coalesce(${asNumber}, ${sql.lit(UNKNOWN_BIRTHDAY_FIRST_TO_LAST)})`;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The person (alias `p`) passes `q` (as GET /people reads it) and is one the caller sees. */
function personPasses(db: TenantDb, selection: MemberSelection, eb: PeopleQuery): Expression<SqlBool> | null {
  const parts: Expression<SqlBool>[] = [];
  if (selection.seenBy !== null) parts.push(visiblePeople(eb, selection.seenBy));
  if (selection.q !== undefined) {
    const names = `%${escapeLike(sortKey(selection.q))}%`;
    const logins = `%${escapeLike(lowerAscii(selection.q))}%`;
    const like = (expression: Expression<unknown>, pattern: string) => sql<SqlBool>`${expression} like ${pattern} escape '\\'`;
    const lower = (column: string) => sql`lower(${binaryText(db, column)})`;
    parts.push(eb.or([like(sql.ref('p.lastname_key'), names), like(sql.ref('p.firstname_key'), names), like(lower('p.username'), logins), like(lower('p.email'), logins)]));
  }
  return parts.length === 0 ? null : eb.and(parts);
}

type OrderQuery = ExpressionBuilder<TenantDatabase & { o: TenantDatabase['member_order'] }, 'o'>;

/**
 * The `member_order` rows (alias `o`) of the selected memberships: one range of its index
 * `member_order_list` (group, then name order), whose columns hold the whole test of the group,
 * day and role type. `withPerson`: each row's person is tested too, by id, as the walk reaches it.
 */
function selectedRows(db: TenantDb, selection: MemberSelection, withPerson: boolean) {
  let rows = db.selectFrom('member_order as o').where('o.group_id', '=', selection.group.id);
  if (!selection.below) rows = rows.where('o.direct', '=', 1);
  if (selection.activeOn !== null) rows = rows.where(activeOn('o', selection.activeOn));
  if (selection.roleType !== undefined) rows = rows.where('o.role_type', '=', selection.roleType);
  if (!withPerson || (selection.seenBy === null && selection.q === undefined)) return rows;
  return rows.where((eb: OrderQuery) => {
    const person = eb
      .selectFrom('users as p')
      .select(sql.lit(1).as('one'))
      .whereRef('p.id', '=', 'o.person_id')
      .where((inner) => personPasses(db, selection, inner as unknown as PeopleQuery)!);
    // PostgreSQL never turns a subquery with an OFFSET into a semi-join: it stays a test of each
    // row the walk reaches, instead of a read of every person the group holds on every page.
    return eb.exists(onPostgres(db) ? person.offset(sql.lit(0)) : person);
  });
}

/**
 * A page of the selected people in the selection's order, after the row with key `after`:
 * `limit + 1` rows (the extra one tells that another page follows).
 */
export async function listMemberPage(db: TenantDb, selection: MemberSelection, after: SortKey | null, limit: number): Promise<MemberRow[]> {
  return selection.sort === 'name' || selection.sort === '-name' ? namePage(db, selection, after, limit) : rankedPage(db, selection, after, limit);
}

/**
 * Name order, either way: the range of `member_order_list` walked from the cursor, a person with
 * several selected memberships grouped into one. A page costs its rows, however large the group.
 */
async function namePage(db: TenantDb, selection: MemberSelection, after: SortKey | null, limit: number): Promise<MemberRow[]> {
  const direction = selection.sort === '-name' ? 'desc' : 'asc';
  const keyColumns = [...KEPT_ORDER];
  let range = selectedRows(db, selection, true).select(keyColumns).groupBy(keyColumns);
  if (after !== null) {
    const comparison = direction === 'desc' ? sql`<` : sql`>`;
    range = range.where(sql<SqlBool>`(${sql.join(keyColumns.map((column) => sql.ref(column)))}) ${comparison} (${sql.join([...after])})`);
  }
  for (const column of keyColumns) range = range.orderBy(column, direction);
  let page = db.selectFrom(range.limit(limit + 1).as('k')).innerJoin('users as p', 'p.id', 'k.person_id').selectAll('p');
  for (const column of [...NAME_COLUMNS, 'person_id'] as const) page = page.orderBy(`k.${column}`, direction);
  return page.execute();
}

/**
 * Birthday or role order: the selected people (one range of `member_order_list`, grouped by
 * person) with their key, sorted. Unlike the name order, no index holds this order: a page
 * sorts the selection's people, so it costs what the group holds (not the tenant).
 */
async function rankedPage(db: TenantDb, selection: MemberSelection, after: SortKey | null, limit: number): Promise<MemberRow[]> {
  const selected =
    selection.sort === 'role'
      ? selectedRows(db, selection, false)
          .innerJoin('role_types as r', 'r.key', 'o.role_type')
          .select((eb) => ['o.person_id', eb.fn.min(strengthOf(db, 'r.permission', 'o.role_type')).as('strongest')])
          .groupBy('o.person_id')
      : // The same columns either way (a birthday page has no use for `strongest`).
        selectedRows(db, selection, false).select(['o.person_id', sql<string>`null`.as('strongest')]).groupBy('o.person_id');
  const value: RawBuilder<string | number> =
    selection.sort === 'role' ? (onPostgres(db) ? sql<string>`s.strongest collate "C"` : sql<string>`s.strongest`) : birthdayKey(selection.sort === '-birthday');
  const order = [value, binaryText(db, 'p.lastname_key'), binaryText(db, 'p.firstname_key'), binaryText(db, 'p.lastname'), binaryText(db, 'p.firstname'), sql.ref('p.id')];
  let page = db
    .selectFrom(selected.as('s'))
    .innerJoin('users as p', 'p.id', 's.person_id')
    .selectAll('p')
    .select(value.as('sort_value'));
  const passes = (eb: unknown) => personPasses(db, selection, eb as PeopleQuery);
  if (selection.seenBy !== null || selection.q !== undefined) page = page.where((eb) => passes(eb)!);
  if (after !== null) page = page.where(sql<SqlBool>`(${sql.join(order)}) > (${sql.join([...after])})`);
  for (const column of order) page = page.orderBy(column);
  return (await page.limit(limit + 1).execute()) as MemberRow[];
}

/** A person's key in the selection's order (the cursor after them). */
export function memberSortKey(row: MemberRow, sort: MemberSort): SortKey {
  const names = [row.lastname_key, row.firstname_key, row.lastname, row.firstname, Number(row.id)];
  return sort === 'name' || sort === '-name' ? names : [row.sort_value ?? null, ...names];
}

/** How many people the selection lists (every page together). */
export async function countMembers(db: TenantDb, selection: MemberSelection): Promise<number> {
  const row = await selectedRows(db, selection, true)
    .select(sql<number | string>`count(distinct o.person_id)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The selected memberships of these people (a page of them), each with its group's name and its
 * role type's permission, by person and id: one statement, by the index of a person's memberships.
 * The group is matched as `+m.group_id`, which no index serves: the statement reads the page's
 * people's few memberships, never the whole group's or subtree's (which PostgreSQL otherwise
 * picks where it guesses the group small).
 */
export async function selectedMembershipsOf(db: TenantDb, selection: MemberSelection, personIds: readonly number[]): Promise<SelectedMembershipRow[]> {
  if (personIds.length === 0) return [];
  const groupId = sql<number>`+${sql.ref('m.group_id')}`;
  let query = db
    .selectFrom('memberships as m')
    .innerJoin('groups as g', (join) => join.on(sql.ref('g.id'), '=', groupId))
    .innerJoin('role_types as r', 'r.key', 'm.role_type')
    .selectAll('m')
    .select(['g.name as group_name', 'r.permission'])
    .where('m.person_id', 'in', [...personIds]);
  query = selection.below ? query.where(groupAmong('g', [selection.group.path], [])) : query.where(groupId, '=', selection.group.id);
  if (selection.activeOn !== null) query = query.where(activeOn('m', selection.activeOn));
  if (selection.roleType !== undefined) query = query.where('m.role_type', '=', selection.roleType);
  return query.orderBy('m.person_id').orderBy('m.id').execute();
}
