import { sql } from 'kysely';
import { onPostgres } from '../../db/dialect.js';
import type { TenantDb, GroupRow } from '../../db/types.js';
import { CompiledQueries } from '../../db/compiled-queries.js';
import { activeOn, pathUpperBound } from '../../db/conditions.js';
import type { Day } from '../../lib/time.js';

const nextVersion = sql<number>`version + 1`;

/** Every group of the tenant: a tree is a few hundred rows, ordered in memory (rules.ts). */
export const listAllGroups = (db: TenantDb): Promise<GroupRow[]> => db.selectFrom('groups').selectAll().execute();

/**
 * Tree writes (a new group, a move) take turns per tenant: on PostgreSQL by locking the root's row
 * until the transaction ends; on SQLite every transaction holds the write lock from its start.
 * What they read of the tree after this is what the writer before them left, so two moves can
 * never make a cycle and no new group keeps the path its parent had before a move.
 */
export async function lockTree(db: TenantDb): Promise<void> {
  if (!onPostgres(db)) return;
  await db.selectFrom('groups').select('id').where('parent_id', 'is', null).forUpdate().execute();
}

/**
 * Keeps a group from being deleted until the transaction ends, for a write that adds something to
 * it (a membership, an event): on PostgreSQL its row FOR SHARE, which the delete's FOR UPDATE waits
 * for (and the other way round); on SQLite the transaction holds the write lock already. False when
 * the group is gone, deleted by a transaction that committed first.
 */
export async function holdGroup(db: TenantDb, id: number): Promise<boolean> {
  let query = db.selectFrom('groups').select('id').where('id', '=', id);
  if (onPostgres(db)) query = query.forShare();
  return (await query.executeTakeFirst()) !== undefined;
}

/** A group's row, locked until the transaction ends, for its change or deletion: writes that hold the group finish first (see holdGroup). */
export async function lockGroup(db: TenantDb, id: number): Promise<GroupRow | undefined> {
  let query = db.selectFrom('groups').selectAll().where('id', '=', id);
  if (onPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Compiled once per handle: most requests about a group, and every page of its people, read its row first. */
const groupRows = new CompiledQueries((db: TenantDb, _inputs: null, [id]: readonly unknown[]) => db.selectFrom('groups').selectAll().where('id', '=', id as number), 1);

export const findGroup = async (db: TenantDb, id: number): Promise<GroupRow | undefined> =>
  (await db.executeQuery<GroupRow>(groupRows.compile(db, null, [id]))).rows[0];

export async function insertGroup(
  db: TenantDb,
  parent: Pick<GroupRow, 'id' | 'path'>,
  group: Pick<GroupRow, 'name' | 'name_key' | 'kind' | 'description'>,
  now: string,
): Promise<GroupRow> {
  const { id } = await db
    .insertInto('groups')
    .values({ ...group, parent_id: parent.id, path: parent.path, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return db
    .updateTable('groups')
    .set({ path: `${parent.path}${Number(id)}/` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateGroup(
  db: TenantDb,
  id: number,
  changes: Partial<Pick<GroupRow, 'name' | 'name_key' | 'kind' | 'description' | 'parent_id'>>,
  now: string,
): Promise<GroupRow> {
  return db
    .updateTable('groups')
    .set({ ...changes, updated_at: now, version: nextVersion })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Moves a subtree: every path that starts with `from` starts with `to` instead (one statement).
 * Each group below changes too (its `ancestors`), so its version and `updated_at` move with it.
 */
export async function movePaths(db: TenantDb, from: string, to: string, now: string): Promise<number[]> {
  const moved = await db
    .updateTable('groups')
    .set({ path: sql<string>`${to} || substr(path, ${from.length + 1})`, version: nextVersion, updated_at: now })
    .where('path', '>=', from)
    .where('path', '<', pathUpperBound(from))
    .returning('id')
    .execute();
  return moved.map((row) => Number(row.id));
}

export const hasSubgroups = async (db: TenantDb, id: number): Promise<boolean> =>
  (await db.selectFrom('groups').select('id').where('parent_id', '=', id).limit(1).executeTakeFirst()) !== undefined;

export const hasActiveMemberships = async (db: TenantDb, id: number, day: Day): Promise<boolean> =>
  (await db.selectFrom('memberships as m').select('m.id').where('m.group_id', '=', id).where(activeOn('m', day)).limit(1).executeTakeFirst()) !==
  undefined;

/**
 * Deletes a group and the memberships that ended or are yet to come in it (the active ones stop
 * it); returns those memberships.
 */
export async function deleteGroup(db: TenantDb, id: number): Promise<{ id: number; person_id: number }[]> {
  const memberships = await db.deleteFrom('memberships').where('group_id', '=', id).returning(['id', 'person_id']).execute();
  await db.deleteFrom('groups').where('id', '=', id).execute();
  return memberships.map((row) => ({ id: Number(row.id), person_id: Number(row.person_id) }));
}
