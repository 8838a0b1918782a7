import type { Kysely } from 'kysely';
import { touchTokensLastUsed } from './queries.js';
import type { TenantDatabase } from '../../db/types.js';
import { toDbTimestamp } from '../../lib/time.js';

/** last_used_at is written at most once per this interval per token. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** Token uses written by one statement at most (five parameters each): far below both dialects' limits. */
const USES_PER_STATEMENT = 500;

export interface LastUseRecorder {
  /** Notes that a token was used; written with the next batch, never on the request's path. */
  record(tenant: string, db: Kysely<TenantDatabase>, tokenId: number, at: Date): void;
  /** Writes everything noted so far, due or not (also called when the app closes). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export interface LastUseRecorderOptions {
  flushIntervalMs: number;
  /**
   * Whether the tenant's database is open (a write costs only the write). Uses in tenants whose
   * database is closed wait up to `closedDelayMs`, so that such a tenant is opened about once per
   * that time for all its tokens, not once per token. Without it, every batch writes everything.
   */
  isOpen?: (tenant: string) => boolean;
  closedDelayMs?: number;
  onError: (err: unknown) => void;
}

interface TenantUses {
  db: Kysely<TenantDatabase>;
  uses: Map<number, Date>;
  /** performance.now() of the first use noted since the last write. */
  since: number;
}

/**
 * Collects token uses in memory and writes them every `flushIntervalMs`, one transaction per
 * tenant: many tokens first used within a second cost one commit, not one write each.
 *
 * Why tenants with a closed database wait: with the default 100 open SQLite files, 20,000 busy
 * tokens spread over 1,000 tenants age past their minute at different moments, and writing each
 * batch at once opened (and, to make room, closed and checkpointed) some hundred files a second:
 * about 1 ms each, a third of the server's CPU (cpu profile: close, exec and open 40 us per request
 * while GET /api/user throughput fell from 27,000 to 7,500 req/s).
 */
export function createLastUseRecorder({ flushIntervalMs, isOpen = () => true, closedDelayMs = 0, onError }: LastUseRecorderOptions): LastUseRecorder {
  let pending = new Map<string, TenantUses>();
  let running: Promise<void> = Promise.resolve();

  const writeBatch = async (batch: TenantUses[]) => {
    for (const { db, uses } of batch) {
      try {
        // By id, so that each statement's share of a large batch is the same on every instance.
        const all = [...uses].sort(([a], [b]) => a - b).map(([tokenId, at]) => ({
          tokenId,
          at: toDbTimestamp(at),
          staleBefore: toDbTimestamp(new Date(at.getTime() - LAST_USED_WRITE_INTERVAL_MS)),
        }));
        await db.transaction().execute(async (trx) => {
          for (let start = 0; start < all.length; start += USES_PER_STATEMENT) await touchTokensLastUsed(trx, all.slice(start, start + USES_PER_STATEMENT));
        });
      } catch (err) {
        // A lost timestamp is no reason to fail anything; the next use records it again.
        onError(err);
      }
    }
  };

  /** Writes the uses that are due (all of them with `everything`). */
  const flush = (everything: boolean) => {
    const now = performance.now();
    const batch: TenantUses[] = [];
    for (const [tenant, entry] of pending) {
      if (everything || now - entry.since >= closedDelayMs || isOpen(tenant)) {
        batch.push(entry);
        pending.delete(tenant);
      }
    }
    if (batch.length === 0) return running;
    running = running.then(() => writeBatch(batch));
    return running;
  };

  const timer = setInterval(() => void flush(false), flushIntervalMs);
  timer.unref();

  return {
    record(tenant, db, tokenId, at) {
      let entry = pending.get(tenant);
      if (!entry) pending.set(tenant, (entry = { db, uses: new Map(), since: performance.now() }));
      entry.uses.set(tokenId, at);
    },
    flush: () => flush(true),
    async stop() {
      clearInterval(timer);
      await flush(true);
    },
  };
}
