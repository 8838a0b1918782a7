import type { Storage } from '../../db/storage.js';
import { toDbTimestamp } from '../../lib/time.js';
import { listAllTenants } from '../tenants/rules.js';
import { pruneRecords } from './queries.js';

/** Deletes, in every tenant, the change records older than `days` days. */
export async function pruneChangeRecords(storage: Storage, days: number, now = new Date()): Promise<{ tenants: number; deleted: number }> {
  const before = toDbTimestamp(new Date(now.getTime() - days * 86_400_000));
  const tenants = await listAllTenants(storage);
  let deleted = 0;
  for (const tenant of tenants) deleted += await pruneRecords(storage.tenantDb(tenant.slug), before);
  return { tenants: tenants.length, deleted };
}
