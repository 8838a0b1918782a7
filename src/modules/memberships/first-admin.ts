import type { Kysely } from 'kysely';
import type { TenantDatabase, MembershipRow } from '../../db/types.js';
import { transact } from '../../recording/recorder.js';
import { addMembership } from './rules.js';
import { rootAdminMemberships } from './queries.js';
import type { Day } from '../../lib/time.js';
import { rootGroup } from '../permissions/rules.js';

/**
 * The first-start `admin` user and a user made with `groupadmin user create`
 * without `--group` become administrators of the root when the tenant has no administrator yet,
 * so a new tenant can be run through the API at once. A tenant that has one is left alone.
 * Returns the membership granted, or null.
 */
export async function grantFirstAdministrator(db: Kysely<TenantDatabase>, personId: number, today: Day): Promise<MembershipRow | null> {
  return transact(db, null, async (trx) => {
    const root = await rootGroup(trx);
    if ((await rootAdminMemberships(trx, root.id, today)).length > 0) return null;
    return addMembership(trx, personId, { group_id: root.id, role_type: 'admin' }, today);
  });
}
