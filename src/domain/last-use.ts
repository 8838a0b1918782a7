import type { Kysely } from 'kysely';
import { touchTokenLastUsed } from '../db/tokens.js';
import type { TenantDatabase } from '../db/types.js';
import { toDbTimestamp } from './time.js';

/** last_used_at is written at most once per this interval per token. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export interface LastUseRecorder {
  /** Notes that a token was used; written with the next batch, never on the request's path. */
  record(tenant: string, db: Kysely<TenantDatabase>, tokenId: number, at: Date): void;
  /** Writes what was noted so far (also called when the app closes). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Collects token uses in memory and writes them every `flushIntervalMs`, one transaction per
 * tenant: many tokens first used within a second cost one commit, not one write each.
 */
export function createLastUseRecorder(options: { flushIntervalMs: number; onError: (err: unknown) => void }): LastUseRecorder {
  let pending = new Map<string, { db: Kysely<TenantDatabase>; uses: Map<number, Date> }>();
  let running: Promise<void> = Promise.resolve();

  const writeBatch = async (batch: typeof pending) => {
    for (const { db, uses } of batch.values()) {
      try {
        await db.transaction().execute(async (trx) => {
          for (const [tokenId, at] of uses) {
            const staleBefore = toDbTimestamp(new Date(at.getTime() - LAST_USED_WRITE_INTERVAL_MS));
            await touchTokenLastUsed(trx, tokenId, toDbTimestamp(at), staleBefore);
          }
        });
      } catch (err) {
        // A lost timestamp is no reason to fail anything; the next use records it again.
        options.onError(err);
      }
    }
  };

  const flush = () => {
    if (pending.size === 0) return running;
    const batch = pending;
    pending = new Map();
    running = running.then(() => writeBatch(batch));
    return running;
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs);
  timer.unref();

  return {
    record(tenant, db, tokenId, at) {
      let entry = pending.get(tenant);
      if (!entry) pending.set(tenant, (entry = { db, uses: new Map() }));
      entry.uses.set(tokenId, at);
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
