import { performance } from 'node:perf_hooks';
import { appendAuthChange, deleteAuthChangesBefore, latestAuthChangeId, readAuthChangesAfter } from '../db/auth-changes.js';
import type { Storage } from '../db/storage.js';
import { toDbTimestamp } from './time.js';

/**
 * Something about a user or token changed: a token was revoked (tokenId), or a password changed,
 * a user was deactivated, activated or edited, or some of a user's tokens were revoked (userId).
 * Imports only add rows, which nothing remembers as missing, so they announce nothing.
 */
export interface AuthChange {
  tenant: string;
  userId: number | null;
  tokenId: number | null;
}

/** How long changes stay in the feed: an instance that could not read it for longer starts afresh. */
const RETENTION_MS = 10 * 60_000;
const PRUNE_EVERY_MS = 60_000;
const READ_BATCH = 1000;

/** Tells every instance about a change that has been committed (the CLI, the import). */
export function announceAuthChange(storage: Pick<Storage, 'registry' | 'dialect'>, change: AuthChange): Promise<void> {
  return appendAuthChange(storage, { ...change, at: toDbTimestamp(new Date()) });
}

export interface AuthChangeFeed {
  /**
   * After this process committed a change: applied here at once, then announced to the others.
   * When the announcement fails it is kept and sent again with the next read of the feed.
   */
  publish(change: AuthChange): Promise<void>;
  /**
   * True while the feed has been read within `trustMs`: only then may remembered token rows be
   * used, because only then has every change announced more than `trustMs` ago been applied.
   */
  isCurrent(): boolean;
  stop(): Promise<void>;
}

export interface AuthChangeFeedOptions {
  intervalMs: number;
  trustMs: number;
  /** A change, from this process or another. */
  onChange: (change: AuthChange) => void;
  /** The feed could not be read for a while: whatever was remembered may have missed changes. */
  onReset: () => void;
  onError: (err: unknown) => void;
}

/** Reads the feed every `intervalMs` from the newest change on, and publishes this process's changes. */
export async function openAuthChangeFeed(storage: Storage, options: AuthChangeFeedOptions): Promise<AuthChangeFeed> {
  let cursor = await latestAuthChangeId(storage.registry);
  let lastReadStartedAt = performance.now();
  let failing = false;
  let lastPruneAt = Number.NEGATIVE_INFINITY;
  let stopped = false;
  let unsent: AuthChange[] = [];
  let timer: NodeJS.Timeout | undefined;

  const sendUnsent = async () => {
    const waiting = unsent;
    unsent = [];
    for (const [index, change] of waiting.entries()) {
      try {
        await announceAuthChange(storage, change);
      } catch (err) {
        unsent.push(...waiting.slice(index));
        throw err;
      }
    }
  };

  const read = async () => {
    const startedAt = performance.now();
    await sendUnsent();
    for (;;) {
      const rows = await readAuthChangesAfter(storage.registry, cursor, READ_BATCH);
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
      await deleteAuthChangesBefore(storage.registry, toDbTimestamp(new Date(Date.now() - RETENTION_MS)));
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
    async publish(change) {
      options.onChange(change);
      try {
        await announceAuthChange(storage, change);
      } catch (err) {
        unsent.push(change);
        options.onError(err);
      }
    },
    isCurrent: () => !failing && performance.now() - lastReadStartedAt < options.trustMs,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await sendUnsent().catch(options.onError);
    },
  };
}
