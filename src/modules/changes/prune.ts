import type { Storage } from '../../db/storage.js';
import { toDbTimestamp } from '../../lib/time.js';
import { listAllTenants } from '../tenants/rules.js';
import { pruneRecords } from '../../recording/records.js';

/** Deletes, in every tenant, the change records older than `days` days. */
export async function pruneChangeRecords(storage: Storage, days: number, now = new Date()): Promise<{ tenants: number; deleted: number }> {
  const before = toDbTimestamp(new Date(now.getTime() - days * 86_400_000));
  const tenants = await listAllTenants(storage);
  let deleted = 0;
  for (const tenant of tenants) deleted += await pruneRecords(storage.tenantDb(tenant.slug), before);
  return { tenants: tenants.length, deleted };
}

const DAY_MS = 86_400_000;
/** After a start, so that a fleet restarted at once does not prune in the first busy minute. */
const FIRST_RUN_MS = 10 * 60_000;

/**
 * Prunes change records once a day in the running service (`groupadmin changes prune` does the
 * same on demand). Every instance runs it; a second run finds nothing left to delete.
 */
export function scheduleChangePruning(storage: Storage, days: number, onError: (err: unknown) => void): { stop(): Promise<void> } {
  // The prune under way: stop() waits for it, so no query runs after the storage closes.
  let pruning: Promise<unknown> = Promise.resolve();
  const run = () => {
    pruning = pruneChangeRecords(storage, days).catch(onError);
  };
  let daily: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    run();
    daily = setInterval(run, DAY_MS).unref();
  }, FIRST_RUN_MS).unref();
  return {
    async stop() {
      clearTimeout(first);
      if (daily) clearInterval(daily);
      await pruning;
    },
  };
}
