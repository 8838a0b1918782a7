import { performance } from 'node:perf_hooks';
import { toDbTimestamp } from '../../lib/time.js';
import type { Storage } from '../storage.js';
import { deleteFeedBefore, latestFeedId, readFeedAfter, type CacheChange } from './queries.js';

/** How long changes stay in the feed: an instance that could not read it for longer starts afresh. */
const RETENTION_MS = 10 * 60_000;
const PRUNE_EVERY_MS = 60_000;
const READ_BATCH = 1000;

export interface CacheChangeFeed {
  /**
   * True while the feed has been read within `trustMs`: only then may remembered rows be used,
   * because only then has every change announced more than `trustMs` ago been applied.
   */
  isCurrent(): boolean;
  stop(): Promise<void>;
}

export interface CacheChangeFeedOptions {
  intervalMs: number;
  trustMs: number;
  /** A change, from this process or another. */
  onChange: (change: CacheChange) => void;
  /** The feed could not be read for a while: whatever was remembered may have missed changes. */
  onReset: () => void;
  onError: (err: unknown) => void;
}

/**
 * Reads the registry's feed of cache changes (see relay.ts) every `intervalMs` from the newest
 * change on, and retries the relays of this process that could not reach the feed.
 */
export async function openCacheChangeFeed(storage: Storage, options: CacheChangeFeedOptions): Promise<CacheChangeFeed> {
  let cursor = await latestFeedId(storage.registry);
  let lastReadStartedAt = performance.now();
  let failing = false;
  let lastPruneAt = Number.NEGATIVE_INFINITY;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let relaysFailing = false;

  /**
   * This process's changes that could not be relayed yet. Their failing (one tenant's file gone,
   * say) does not make the feed less current: it is about what the others hear, not this process.
   */
  const retryRelays = async () => {
    try {
      await storage.invalidations.retryPending();
      relaysFailing = false;
    } catch (err) {
      if (!relaysFailing) options.onError(err);
      relaysFailing = true;
    }
  };

  const read = async () => {
    const startedAt = performance.now();
    await retryRelays();
    for (;;) {
      const rows = await readFeedAfter(storage.registry, cursor, READ_BATCH);
      for (const row of rows) options.onChange({ tenant: row.tenant, userId: row.user_id, tokenId: row.token_id });
      if (rows.length > 0) cursor = Number(rows[rows.length - 1]!.id);
      if (rows.length < READ_BATCH) break;
    }
    if (failing) {
      // Changes made while the feed was unreadable may be gone (pruned) or not yet applied.
      failing = false;
      options.onReset();
    }
    lastReadStartedAt = startedAt;
    if (startedAt - lastPruneAt >= PRUNE_EVERY_MS) {
      lastPruneAt = startedAt;
      await deleteFeedBefore(storage.registry, toDbTimestamp(new Date(Date.now() - RETENTION_MS)));
    }
  };

  const tick = async () => {
    try {
      await read();
    } catch (err) {
      if (!failing) options.onError(err);
      failing = true;
    }
    if (!stopped) {
      timer = setTimeout(() => void tick(), options.intervalMs);
      timer.unref();
    }
  };
  timer = setTimeout(() => void tick(), options.intervalMs);
  timer.unref();

  return {
    isCurrent: () => !failing && performance.now() - lastReadStartedAt < options.trustMs,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await retryRelays();
    },
  };
}
