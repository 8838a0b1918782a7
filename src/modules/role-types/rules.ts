import type { Kysely } from 'kysely';
import { atLeast } from '../../access/permissions.js';
import type { TenantDatabase } from '../../db/types.js';
import { errors, fieldMessages, ruleMessages } from '../../errors.js';
import { requireIfMatch } from '../../http/etag.js';
import { pickFields } from '../../lib/pick.js';
import { toDbTimestamp } from '../../lib/time.js';
import type { Access } from '../permissions/rules.js';
import { deleteRoleType, findRoleType, insertRoleType, isRoleTypeInUse, listRoleTypeRows, updateRoleType, type RoleTypeRow } from './queries.js';
import type { NewRoleType, RoleTypeUpdate } from './schemas.js';

type TenantDb = Kysely<TenantDatabase>;

export const listRoleTypes = listRoleTypeRows;
export { findRoleType };

export async function requireRoleType(db: TenantDb, key: string): Promise<RoleTypeRow> {
  const found = await findRoleType(db, key);
  if (!found) throw errors.notFound('Role type');
  return found;
}

/** Changing the catalogue needs `admin` on the root (groups.md section 2). */
export function requireAdminOnRoot(access: Access): void {
  if (!atLeast(access.on(access.root.path), 'admin')) throw errors.unauthorized();
}

export async function createRoleType(db: TenantDb, input: NewRoleType): Promise<RoleTypeRow> {
  if (await findRoleType(db, input.key)) throw errors.invalidField('key', fieldMessages.taken('key'));
  return insertRoleType(db, { key: input.key, label: input.label ?? input.key, permission: input.permission, scope: input.scope }, toDbTimestamp(new Date()));
}

export async function changeRoleType(db: TenantDb, key: string, input: RoleTypeUpdate, ifMatch: string | undefined): Promise<RoleTypeRow> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRoleType(trx, key);
    requireIfMatch(ifMatch, current.version);
    return updateRoleType(trx, key, pickFields(input, ['label', 'permission', 'scope']), toDbTimestamp(new Date()));
  });
}

export async function removeRoleType(db: TenantDb, key: string, ifMatch: string | undefined): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await requireRoleType(trx, key);
    requireIfMatch(ifMatch, current.version);
    if (await isRoleTypeInUse(trx, key)) throw errors.ruleBroken('role_type', ruleMessages.roleTypeInUse);
    await deleteRoleType(trx, key);
  });
}
