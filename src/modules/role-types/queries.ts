import { containsNul } from '../../lib/validation.js';
import { sql, type Selectable } from 'kysely';
import type { RoleTypesTable, TenantDb } from '../../db/types.js';

export type RoleTypeRow = Selectable<RoleTypesTable>;
export const listRoleTypeRows = (db: TenantDb): Promise<RoleTypeRow[]> => db.selectFrom('role_types').selectAll().orderBy('id').execute();

/** A key with U+0000 names no role type (PostgreSQL's text cannot even compare it). */
export const findRoleType = async (db: TenantDb, key: string): Promise<RoleTypeRow | undefined> =>
  containsNul(key) ? undefined : db.selectFrom('role_types').selectAll().where('key', '=', key).executeTakeFirst();

export const insertRoleType = (db: TenantDb, row: Pick<RoleTypeRow, 'key' | 'label' | 'permission' | 'scope'>, now: string): Promise<RoleTypeRow> =>
  db.insertInto('role_types').values({ ...row, created_at: now, updated_at: now }).returningAll().executeTakeFirstOrThrow();

export const updateRoleType = (db: TenantDb, key: string, changes: Partial<Pick<RoleTypeRow, 'label' | 'permission' | 'scope'>>, now: string) =>
  db
    .updateTable('role_types')
    .set({ ...changes, updated_at: now, version: sql<number>`version + 1` })
    .where('key', '=', key)
    .returningAll()
    .executeTakeFirstOrThrow();

export const isRoleTypeInUse = async (db: TenantDb, key: string): Promise<boolean> =>
  (await db.selectFrom('memberships').select('id').where('role_type', '=', key).limit(1).executeTakeFirst()) !== undefined;

export async function deleteRoleType(db: TenantDb, key: string): Promise<void> {
  await db.deleteFrom('role_types').where('key', '=', key).execute();
}
