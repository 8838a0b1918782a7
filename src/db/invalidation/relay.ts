import type { Kysely } from 'kysely';
import { toDbTimestamp } from '../../lib/time.js';
import type { RegistryDatabase, TenantDatabase } from '../types.js';
import { appendToFeed, deleteOutboxRows, readOutbox, type CacheChange, type OutboxRow } from './queries.js';

const BATCH = 500;
/** How long this process remembers that it already told its caches of an outbox row. */
const TOLD_KEEP_MS = 60_000;

/**
 * How a change to cached rows reaches every cache, by construction:
 * 1. Triggers in each tenant database (migration 2026-11-23T10-00-00) write every update or
 *    deletion of a cached row into the tenant's outbox, `cache_changes`, inside the writing
 *    transaction: a change cannot commit without its announcement.
 * 2. After a writing connection that may have announced a change is released, the storage relays
 *    the outbox (WriteWatchingDriver; a write that names neither cached table is only counted):
 *    this process's caches forget at once, then the changes are appended to the registry's feed,
 *    which every other instance reads (feed.ts), and the outbox rows are deleted.
 * A relay that fails (registry away) leaves its rows in the outbox and is retried by the feed.
 */
export interface Invalidations {
  /** Called for every change this process relays, before the write's caller goes on. */
  subscribe(listener: (change: CacheChange) => void): () => void;
  /**
   * Relays the tenant's outbox; resolves once a relay that started after this call has ended.
   * `seen`: outbox rows a writer read just before its commit, told to this process at once
   * (another process may relay them first).
   */
  relay(tenant: string, seen?: OutboxRow[]): Promise<void>;
  /**
   * A write to the tenant has finished (its connection was given back): relays the outbox when
   * one of its statements may have announced a change, and counts it either way (`writes`).
   */
  afterWrite(tenant: string, seen: OutboxRow[], mayAnnounce: boolean): Promise<void>;
  /**
   * The tenant's settings (its registry row) have changed: this process's caches hear it at once,
   * every other instance through the feed. Registry rows have no outbox; a failed append is
   * retried with the relays (retryPending).
   */
  announceTenantSettings(tenant: string): Promise<void>;
  /** Relays again what could not be relayed; rejects while that still fails. */
  retryPending(): Promise<void>;
  /**
   * How many writes to the tenant this process has finished (whether or not they announced a
   * change; a relay retried by the feed counts too, harmlessly). It grows before the writer goes
   * on, so a cache that notes it before a read knows whether a write of this process has
   * finished since (db/tenant-memory.ts).
   */
  writes(tenant: string): number;
}

export interface RelayOptions {
  registry: Kysely<RegistryDatabase>;
  dialect: 'sqlite' | 'postgres';
  tenantDb: (slug: string) => Kysely<TenantDatabase>;
}

interface TenantRelay {
  running?: Promise<void>;
  /** A relay that has not started yet: every writer that asks meanwhile waits for this one. */
  next?: Promise<void>;
}

const toChange = (tenant: string, row: OutboxRow): CacheChange => ({
  tenant,
  userId: row.user_id === null ? null : Number(row.user_id),
  tokenId: row.token_id === null ? null : Number(row.token_id),
});

export function createInvalidationRelay({ registry, dialect, tenantDb }: RelayOptions): Invalidations {
  const listeners = new Set<(change: CacheChange) => void>();
  const relays = new Map<string, TenantRelay>();
  const pending = new Set<string>();
  const writeCounts = new Map<string, number>();
  let lastFailure: unknown;

  const relayOnce = async (tenant: string) => {
    const db = tenantDb(tenant);
    for (;;) {
      const rows = await readOutbox(db, BATCH);
      if (rows.length === 0) return;
      const changes = rows.map((row) => toChange(tenant, row));
      tell(tenant, rows);
      await appendToFeed(registry, dialect, changes, toDbTimestamp(new Date()));
      await deleteOutboxRows(db, rows.map((row) => Number(row.id)));
      for (const row of rows) told.delete(toldKey(tenant, row));
      if (rows.length < BATCH) return;
    }
  };

  const start = (tenant: string, state: TenantRelay): Promise<void> => {
    state.next = undefined;
    const running = relayOnce(tenant).then(
      () => void pending.delete(tenant),
      (err: unknown) => {
        // The write has committed; its announcement waits in the outbox for the next try.
        pending.add(tenant);
        lastFailure = err;
      },
    );
    state.running = running;
    void running.then(() => {
      if (state.running === running) state.running = undefined;
      if (!state.running && !state.next) relays.delete(tenant);
    });
    return running;
  };

  // Outbox rows this process's caches have heard of already (a writer's own, read before its
  // commit), so that its relay does not tell them again. Rows another process relayed are
  // forgotten after TOLD_KEEP_MS.
  const told = new Map<string, number>();
  const toldKey = (tenant: string, row: OutboxRow) => `${tenant}\u0000${row.id}`;
  const tell = (tenant: string, rows: OutboxRow[]) => {
    const now = performance.now();
    for (const row of rows) {
      const key = toldKey(tenant, row);
      if (told.has(key)) continue;
      told.set(key, now);
      const change = toChange(tenant, row);
      for (const listener of listeners) listener(change);
    }
    for (const [key, at] of told) {
      if (now - at < TOLD_KEEP_MS) break;
      told.delete(key);
    }
  };

  /** Tenants whose change of settings could not be appended to the feed yet. */
  const settingsPending = new Set<string>();
  const appendSettings = async (tenant: string) => {
    try {
      await appendToFeed(registry, dialect, [{ tenant, userId: null, tokenId: null }], toDbTimestamp(new Date()));
      settingsPending.delete(tenant);
    } catch (err) {
      settingsPending.add(tenant);
      lastFailure = err;
    }
  };

  const countWrite = (tenant: string) => void writeCounts.set(tenant, (writeCounts.get(tenant) ?? 0) + 1);
  const relay = (tenant: string, seen: OutboxRow[] = []): Promise<void> => {
    countWrite(tenant);
    tell(tenant, seen);
    let state = relays.get(tenant);
    if (!state) relays.set(tenant, (state = {}));
    if (state.next) return state.next;
    // A relay under way may have read the outbox before this caller's rows were committed.
    if (state.running) {
      const current = state;
      state.next = state.running.then(() => start(tenant, current));
      return state.next;
    }
    return start(tenant, state);
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    relay,
    async announceTenantSettings(tenant) {
      const change = { tenant, userId: null, tokenId: null };
      for (const listener of listeners) listener(change);
      await appendSettings(tenant);
    },
    async retryPending() {
      for (const tenant of [...pending]) await relay(tenant);
      for (const tenant of [...settingsPending]) await appendSettings(tenant);
      if (pending.size > 0 || settingsPending.size > 0) throw lastFailure;
    },
    afterWrite(tenant, seen, mayAnnounce) {
      if (mayAnnounce) return relay(tenant, seen);
      countWrite(tenant);
      return Promise.resolve();
    },
    writes: (tenant) => writeCounts.get(tenant) ?? 0,
  };
}
