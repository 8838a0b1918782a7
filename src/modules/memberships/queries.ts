import { sql } from 'kysely';
import { onPostgres } from '../../db/dialect.js';
import type { TenantDb, MembershipRow } from '../../db/types.js';
import type { SortKey } from '../../http/paging.js';
import { binaryText } from '../../db/collation.js';
import { idsInListedOrder, statementChunks } from '../../db/statement-chunks.js';
import { activeOn } from '../../db/conditions.js';
import type { Day } from '../../lib/time.js';

export const findMembership = (db: TenantDb, id: number): Promise<MembershipRow | undefined> =>
  db.selectFrom('memberships').selectAll().where('id', '=', id).executeTakeFirst();

type NewMembershipRow = Omit<MembershipRow, 'id' | 'version' | 'created_at' | 'updated_at'>;

export const insertMembership = (db: TenantDb, row: NewMembershipRow, now: string) =>
  db.insertInto('memberships').values({ ...row, created_at: now, updated_at: now }).returningAll().executeTakeFirstOrThrow();

/** Many memberships (a CSV import) in a few statements: their ids, in the order of `rows`. */
export async function insertMemberships(db: TenantDb, rows: readonly NewMembershipRow[], now: string): Promise<number[]> {
  const ids: number[] = [];
  for (const part of statementChunks(rows)) {
    const values = part.map((row) => ({ ...row, created_at: now, updated_at: now }));
    ids.push(...idsInListedOrder(await db.insertInto('memberships').values(values).returning('id').execute()));
  }
  return ids;
}

export const updateMembership = (db: TenantDb, id: number, changes: Partial<Pick<MembershipRow, 'label' | 'start_on' | 'end_on'>>, now: string) =>
  db
    .updateTable('memberships')
    .set({ ...changes, updated_at: now, version: sql<number>`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

export async function deleteMembership(db: TenantDb, id: number): Promise<void> {
  await db.deleteFrom('memberships').where('id', '=', id).execute();
}

/** Another membership of the same person, group and role type whose dates meet [start, end]. */
/**
 * The membership writes of one person take turns (PostgreSQL: the person's row FOR UPDATE; SQLite:
 * the transaction's write lock), so two requests cannot both find no overlap and both insert.
 * False when the person is gone (erased by a transaction that committed first).
 */
export async function lockPersonForMemberships(db: TenantDb, personId: number): Promise<boolean> {
  let query = db.selectFrom('users').select('id').where('id', '=', personId);
  if (onPostgres(db)) query = query.forUpdate();
  return (await query.executeTakeFirst()) !== undefined;
}

export async function findOverlap(db: TenantDb, m: Pick<MembershipRow, 'person_id' | 'group_id' | 'role_type' | 'start_on' | 'end_on'>, exceptId?: number) {
  let query = db
    .selectFrom('memberships')
    .select('id')
    .where('person_id', '=', m.person_id)
    .where('group_id', '=', m.group_id)
    .where('role_type', '=', m.role_type)
    .where((eb) => eb.or([eb('end_on', 'is', null), eb('end_on', '>=', m.start_on)]));
  if (m.end_on !== null) query = query.where('start_on', '<=', m.end_on);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return query.limit(1).executeTakeFirst();
}

/**
 * The ids of the memberships that give `admin` on the root on `day` (the last administrator,
 * docs/rules/last-administrator.md). In a transaction on PostgreSQL the rows are locked, so two
 * administrators removed at the same moment by two requests cannot both see the other one as the
 * one left: the second waits for the first, and then reads what the first left.
 */
export async function rootAdminMemberships(db: TenantDb, rootId: number, day: Day): Promise<{ id: number; person_id: number }[]> {
  let query = db
    .selectFrom('memberships as m')
    .innerJoin('role_types as r', 'r.key', 'm.role_type')
    .select(['m.id', 'm.person_id'])
    .where('m.group_id', '=', rootId)
    .where('r.permission', '=', 'admin')
    .where(activeOn('m', day));
  // SQLite has no row locks; its writers take turns on the whole file.
  if (db.isTransaction && onPostgres(db)) query = query.forUpdate('m');
  const rows = await query.execute();
  return rows.map((row) => ({ id: Number(row.id), person_id: Number(row.person_id) }));
}

export interface GroupMembershipRow extends MembershipRow {
  p_firstname: string;
  p_lastname: string;
  p_firstname_key: string;
  p_lastname_key: string;
}

/** A group's memberships in the order of their people's names, then id (keyset). */
export function listGroupMemberships(
  db: TenantDb,
  groupId: number,
  filters: { activeOn: Day | null; roleType?: string },
  after: SortKey | null,
  limit: number,
): Promise<GroupMembershipRow[]> {
  let query = db
    .selectFrom('memberships as m')
    .innerJoin('users as p', 'p.id', 'm.person_id')
    .selectAll('m')
    .select(['p.firstname as p_firstname', 'p.lastname as p_lastname', 'p.firstname_key as p_firstname_key', 'p.lastname_key as p_lastname_key'])
    .where('m.group_id', '=', groupId);
  if (filters.activeOn !== null) query = query.where(activeOn('m', filters.activeOn));
  if (filters.roleType !== undefined) query = query.where('m.role_type', '=', filters.roleType);
  const order = [sql.ref('p.lastname_key'), sql.ref('p.firstname_key'), binaryText(db, 'p.lastname'), binaryText(db, 'p.firstname'), sql.ref('m.id')];
  if (after) query = query.where(sql<boolean>`(${sql.join(order)}) > (${sql.join(after as unknown[])})`);
  for (const column of order) query = query.orderBy(column);
  return query.limit(limit + 1).execute();
}

export const groupMembershipKey = (row: GroupMembershipRow): SortKey => [row.p_lastname_key, row.p_firstname_key, row.p_lastname, row.p_firstname, Number(row.id)];

/** A person's memberships by id (keyset), all or those active on a day. */
export function listPersonMemberships(db: TenantDb, personId: number, activeOnDay: Day | null, afterId: number | null, limit: number) {
  let query = db.selectFrom('memberships as m').selectAll('m').where('m.person_id', '=', personId);
  if (activeOnDay !== null) query = query.where(activeOn('m', activeOnDay));
  if (afterId !== null) query = query.where('m.id', '>', afterId);
  return query.orderBy('m.id').limit(limit + 1).execute();
}

/** Every membership of the person (active, future, ended), each with its group's name, by id. */
export function membershipsWithGroupNames(db: TenantDb, personId: number) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .selectAll('m')
    .select('g.name as group_name')
    .where('m.person_id', '=', personId)
    .orderBy('m.id')
    .execute();
}

/** The person's memberships active on `day`, each with its group's name, by id. */
export function activeMembershipsWithGroups(db: TenantDb, personId: number, day: Day) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .select(['m.id', 'm.group_id', 'g.name as group_name', 'm.role_type', 'm.start_on', 'm.end_on'])
    .where('m.person_id', '=', personId)
    .where(activeOn('m', day))
    .orderBy('m.id')
    .execute();
}
