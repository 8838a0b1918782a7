import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { TenantDatabase } from '../../db/types.js';
import { readRoleFacts, type RoleFacts } from './rules.js';

/**
 * How long a caller's roles are remembered at most. Issue 20 allows a changed permission or an
 * ended membership to act for no longer than a second; this is that second, counted from when
 * the read began. Writes through this process are seen at once (see `writes` below).
 */
export const ROLES_KEPT_MS = 1000;
const CALLERS_KEPT = 10_000;

export interface RoleMemoryOptions {
  /**
   * How many writes to the tenant this process has finished; grows before a writer goes on
   * (Invalidations.writes). A change in it forgets what was read before.
   */
  writes: (tenant: string) => number;
  /** Milliseconds, monotonic; tests move it. */
  now?: () => number;
}

interface Remembered {
  facts: Promise<RoleFacts>;
  readAt: number;
  writes: number;
}

/**
 * The callers' roles, read once for many requests: a page of people otherwise spends a fifth of
 * its time reading who is asking (two queries, and on PostgreSQL their planning).
 *
 * Fresh by construction:
 * - A write through this process, to any table of the tenant, forgets the tenant's callers before
 *   the writer's answer is sent (the count of writes is taken before each read, so a read that
 *   overlaps a write is not kept either).
 * - A write by another process (instance, CLI) acts within ROLES_KEPT_MS.
 * - Only the memberships are kept, never a day's verdict: a membership ends at midnight without
 *   any write, and the tenant's day (with its time zone) is asked on every request.
 */
export function createRoleMemory({ writes, now = () => performance.now() }: RoleMemoryOptions) {
  const remembered = new LRUCache<string, Remembered>({ max: CALLERS_KEPT });
  return {
    factsOf(tenant: string, db: Kysely<TenantDatabase>, personId: number): Promise<RoleFacts> {
      const key = `${tenant}\u0000${personId}`;
      const at = now();
      const writesNow = writes(tenant);
      const entry = remembered.get(key);
      if (entry !== undefined && entry.writes === writesNow && at - entry.readAt < ROLES_KEPT_MS) return entry.facts;
      const facts = readRoleFacts(db, personId);
      const fresh: Remembered = { facts, readAt: at, writes: writesNow };
      remembered.set(key, fresh);
      // A failed read is not remembered: the next request reads again.
      facts.catch(() => remembered.get(key) === fresh && remembered.delete(key));
      return facts;
    },
  };
}

export type RoleMemory = ReturnType<typeof createRoleMemory>;
