import { listAllTenants } from '../tenants/rules.js';
import { deleteTokensExpiredBefore } from './queries.js';
import type { Storage } from '../../db/storage.js';
import { toDbTimestamp } from '../../lib/time.js';

export interface PruneResult {
  tenants: number;
  deleted: number;
}

/** Deletes, in every tenant, the tokens that expired more than `hours` ago. */
export async function pruneExpiredTokens(storage: Storage, hours: number, now = new Date()): Promise<PruneResult> {
  const expiredBefore = toDbTimestamp(new Date(now.getTime() - hours * 3_600_000));
  const tenants = await listAllTenants(storage);
  let deleted = 0;
  for (const tenant of tenants) deleted += await deleteTokensExpiredBefore(storage.tenantDb(tenant.slug), expiredBefore);
  return { tenants: tenants.length, deleted };
}
