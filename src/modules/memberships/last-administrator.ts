import { errors, ruleMessages } from '../../errors.js';
import type { TenantDb } from '../../db/types.js';
import type { Access } from '../permissions/rules.js';
import { rootAdminMemberships } from './queries.js';

/** A membership that gives `admin` on the root group today. */
export interface RootAdministration {
  id: number;
  person_id: number;
}

/**
 * The last-administrator rule: a tenant always keeps someone with `admin` on the root group
 * today, or nobody could manage it any more. A change that takes away the administrations
 * `losing` picks (a membership ended or deleted, every membership of a person erased) is refused
 * when they are all there are; one that takes none away passes, whatever else it does.
 *
 * The one place the rule is decided: ending or deleting a membership and erasing a person ask
 * here. Inside a transaction on PostgreSQL the administrations' rows stay locked until it ends,
 * so two changes at once cannot each take away "the other" last one.
 */
export async function requireAdministratorLeft(
  db: TenantDb,
  access: Access,
  entity: 'membership' | 'memberships' | 'person',
  losing: (administration: RootAdministration) => boolean,
): Promise<void> {
  const administrations = await rootAdminMemberships(db, access.root.id, access.day);
  if (!administrations.some(losing)) return;
  if (administrations.every(losing)) throw errors.ruleBroken(entity, ruleMessages.lastAdministrator);
}
