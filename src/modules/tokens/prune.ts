import { listAllTenants } from '../tenants/rules.js';
import { deleteTokensExpiredBefore, deleteEndedSessions } from './queries.js';
import type { Storage } from '../../db/storage.js';
import { toDbTimestamp } from '../../lib/time.js';
import { sessionCutoffs } from './rules.js';
import type { SessionLimits } from './verifier.js';

export interface PruneResult {
  tenants: number;
  deleted: number;
}

/**
 * Deletes, in every tenant, the tokens that expired more than `hours` ago, and the browser
 * sessions that have ended by idleness (`sessions`: the configured limits).
 */
export async function pruneExpiredTokens(storage: Storage, hours: number, sessions: SessionLimits, now = new Date()): Promise<PruneResult> {
  const expiredBefore = toDbTimestamp(new Date(now.getTime() - hours * 3_600_000));
  const cutoffs = sessionCutoffs(sessions, now);
  const tenants = await listAllTenants(storage);
  let deleted = 0;
  for (const tenant of tenants) {
    const db = storage.tenantDb(tenant.slug);
    deleted += (await deleteTokensExpiredBefore(db, expiredBefore)) + (await deleteEndedSessions(db, cutoffs));
  }
  return { tenants: tenants.length, deleted };
}
