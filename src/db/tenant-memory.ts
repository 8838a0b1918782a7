import { LRUCache } from 'lru-cache';
import type { TenantDb } from './types.js';

/**
 * How long a row read for permissions (a caller's memberships, a group a list names) is remembered
 * at most. A changed permission or an ended membership may act for no longer than a second; this
 * is that second, counted from when the read began. Writes through this process are seen at once (see `writes` below).
 */
export const ROWS_KEPT_MS = 1000;
const ROWS_KEPT = 10_000;

export interface TenantMemoryOptions {
  /**
   * How many writes to the tenant this process has finished; grows before a writer goes on
   * (Invalidations.writes). A change in it forgets what was read before.
   */
  writes: (tenant: string) => number;
  /** Milliseconds, monotonic; tests move it. */
  now?: () => number;
}

interface Remembered<T> {
  value: Promise<T>;
  readAt: number;
  writes: number;
}

/**
 * Rows of a tenant read once for many requests, by id: a page of people otherwise spends a fifth
 * of its time reading who is asking and the group it lists (on PostgreSQL each a round trip).
 *
 * Fresh by construction:
 * - A write through this process, to any table of the tenant, forgets the tenant's rows before
 *   the writer's answer is sent (the count of writes is taken before each read, so a read that
 *   overlaps a write is not kept either).
 * - A write by another process (instance, CLI) acts within ROWS_KEPT_MS.
 * - A failed read, and a row not found (`undefined`), are not kept: the next request reads again.
 */
export function createTenantMemory<T>(read: (db: TenantDb, id: number) => Promise<T>, { writes, now = () => performance.now() }: TenantMemoryOptions) {
  const remembered = new LRUCache<string, Remembered<T>>({ max: ROWS_KEPT });
  return (tenant: string, db: TenantDb, id: number): Promise<T> => {
    const key = `${tenant}\u0000${id}`;
    const at = now();
    const writesNow = writes(tenant);
    const entry = remembered.get(key);
    if (entry !== undefined && entry.writes === writesNow && at - entry.readAt < ROWS_KEPT_MS) return entry.value;
    const value = read(db, id);
    const fresh: Remembered<T> = { value, readAt: at, writes: writesNow };
    remembered.set(key, fresh);
    const forget = () => remembered.get(key) === fresh && remembered.delete(key);
    value.then((row) => row === undefined && forget(), forget);
    return value;
  };
}
