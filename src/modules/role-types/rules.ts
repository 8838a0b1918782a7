import type { TenantDb } from '../../db/types.js';
import { errors, fieldMessages, ruleMessages } from '../../errors.js';
import { requireIfMatch } from '../../http/etag.js';
import { pickFields } from '../../lib/pick.js';
import { toDbTimestamp } from '../../lib/time.js';
import { isRootAdmin, type Access } from '../permissions/rules.js';
import { deleteRoleType, findRoleType, insertRoleType, isRoleTypeInUse, listRoleTypeRows, updateRoleType, type RoleTypeRow } from './queries.js';
import { toApiRoleType, type NewRoleType, type RoleTypeUpdate } from './schemas.js';
import { changedFields, noteCreated, noteDeleted, noteUpdated, transact } from '../../recording/recorder.js';

export const listRoleTypes = listRoleTypeRows;
export { findRoleType };

export async function requireRoleType(db: TenantDb, key: string): Promise<RoleTypeRow> {
  const found = await findRoleType(db, key);
  if (!found) throw errors.notFound('Role type');
  return found;
}

/** Changing the catalogue needs `admin` on the root. */
export function requireAdminOnRoot(access: Access): Access {
  if (!isRootAdmin(access)) throw errors.unauthorized();
  return access;
}

/** `actorId`: the caller whose change records name them, null for the command line. */
export async function createRoleType(db: TenantDb, actorId: number | null, input: NewRoleType): Promise<RoleTypeRow> {
  return transact(db, actorId, async (trx) => {
    if (await findRoleType(trx, input.key)) throw errors.invalidField('key', fieldMessages.taken('key'));
    const row = { key: input.key, label: input.label ?? input.key, permission: input.permission, scope: input.scope };
    const created = await insertRoleType(trx, row, toDbTimestamp(new Date()));
    noteCreated(trx, 'role_type', created.key);
    return created;
  });
}

export async function changeRoleType(db: TenantDb, actorId: number | null, key: string, input: RoleTypeUpdate, ifMatch: string | undefined): Promise<RoleTypeRow> {
  return transact(db, actorId, async (trx) => {
    const current = await requireRoleType(trx, key);
    requireIfMatch(ifMatch, current.version);
    const updated = await updateRoleType(trx, key, pickFields(input, ['label', 'permission', 'scope']), toDbTimestamp(new Date()));
    noteUpdated(trx, 'role_type', key, changedFields(toApiRoleType(current), toApiRoleType(updated)));
    return updated;
  });
}

export async function removeRoleType(db: TenantDb, actorId: number | null, key: string, ifMatch: string | undefined): Promise<void> {
  await transact(db, actorId, async (trx) => {
    const current = await requireRoleType(trx, key);
    requireIfMatch(ifMatch, current.version);
    if (await isRoleTypeInUse(trx, key)) throw errors.ruleBroken('role_type', ruleMessages.roleTypeInUse);
    await deleteRoleType(trx, key);
    noteDeleted(trx, 'role_type', key);
  });
}
