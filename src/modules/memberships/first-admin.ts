import type { Kysely } from 'kysely';
import type { TenantDatabase, MembershipRow } from '../../db/types.js';
import { transact } from '../../recording/recorder.js';
import { addMembership } from './rules.js';
import { rootAdminMemberships } from './queries.js';
import type { Day } from '../../lib/time.js';
import { dayIn } from '../permissions/calendar.js';
import { rootGroup } from '../permissions/rules.js';

/**
 * The zone whose date is the earliest on earth (UTC-12; IANA's sign is inverted): no tenant's
 * "today" is ever before its date.
 */
const EARLIEST_ZONE = 'Etc/GMT+12';

/**
 * The first-start `admin` user and a user made with `groupadmin user create`
 * without `--group` become administrators of the root when the tenant has no administrator yet,
 * so a new tenant can be run through the API at once. A tenant that has one is left alone.
 * Returns the membership granted, or null.
 *
 * The membership begins on the earliest date anywhere, not on the tenant's today: setting up a
 * new tenant often starts with its time zone, and a zone further west would otherwise move
 * "today" back before a membership that began on the old zone's today, leaving the only
 * administrator without rights for some hours.
 */
export async function grantFirstAdministrator(db: Kysely<TenantDatabase>, personId: number, today: Day, now = new Date()): Promise<MembershipRow | null> {
  return transact(db, null, async (trx) => {
    const root = await rootGroup(trx);
    if ((await rootAdminMemberships(trx, root.id, today)).length > 0) return null;
    return addMembership(trx, personId, { group_id: root.id, role_type: 'admin', start_on: dayIn(EARLIEST_ZONE, now) }, today);
  });
}
