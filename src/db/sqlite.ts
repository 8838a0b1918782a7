import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import { LRUCache } from 'lru-cache';
import { registryMigrations, tenantMigrations } from './migrations/index.js';
import { migrateToLatest, type Storage } from './storage.js';
import type { RegistryDatabase, TenantDatabase } from './types.js';

/** An evicted tenant handle stays open this long, so requests still using it can finish. */
const DEFAULT_EVICTED_HANDLE_GRACE_MS = 30_000;
const PREPARED_STATEMENTS_PER_DB = 64;

/**
 * better-sqlite3 with its prepared statements kept: Kysely prepares every query anew, and the
 * hot path runs the same few statements over and over.
 */
function openDatabase(path: string, options: { fileMustExist: boolean }): SqliteDatabase & { raw: BetterSqlite3.Database } {
  const db = new BetterSqlite3(path, { fileMustExist: options.fileMustExist });
  // WAL keeps readers and the writer apart; NORMAL sync is still durable against a process crash.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // better-sqlite3 waits synchronously: a lock held by another process (a CLI command, another
  // worker) holds this process's event loop for up to this long before the request gets 503.
  db.pragma('busy_timeout = 2000');
  db.pragma('foreign_keys = ON');
  const statements = new LRUCache<string, BetterSqlite3.Statement>({ max: PREPARED_STATEMENTS_PER_DB });
  return {
    raw: db,
    close: () => db.close(),
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (!statement) {
        statement = db.prepare(sql);
        statements.set(sql, statement);
      }
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}

const rawHandles = new WeakMap<object, BetterSqlite3.Database>();

const kyselyFor = <T>(database: SqliteDatabase & { raw: BetterSqlite3.Database }) => {
  const db = new Kysely<T>({ dialect: new SqliteDialect({ database }) });
  rawHandles.set(db, database.raw);
  return db;
};

/**
 * The better-sqlite3 handle behind a Kysely instance of this storage, or undefined (PostgreSQL).
 * better-sqlite3 answers synchronously, so the hottest query can skip every promise.
 */
export const sqliteHandleOf = (db: object): BetterSqlite3.Database | undefined => rawHandles.get(db);

export interface SqliteStorageOptions {
  dataDir: string;
  tenantCacheSize: number;
  evictedHandleGraceMs?: number;
}

/** One SQLite file for the registry, one per tenant, the open ones held in a bounded cache. */
export function createSqliteStorage({
  dataDir,
  tenantCacheSize,
  evictedHandleGraceMs = DEFAULT_EVICTED_HANDLE_GRACE_MS,
}: SqliteStorageOptions): Storage {
  const tenantDir = join(dataDir, 'tenants');
  mkdirSync(tenantDir, { recursive: true });
  const registry = kyselyFor<RegistryDatabase>(openDatabase(join(dataDir, 'registry.sqlite'), { fileMustExist: false }));
  const tenantPath = (slug: string) => join(tenantDir, `${slug}.sqlite`);
  // Evicted handles wait here before they close. A tenant asked for again meanwhile gets its
  // handle back: SQLite keeps a closed connection's file open while another connection of the
  // same process has that file open, so two handles on one file would leak descriptors.
  const evicted = new Map<string, { db: Kysely<TenantDatabase>; timer: NodeJS.Timeout }>();

  const closeLater = (slug: string, db: Kysely<TenantDatabase>) => {
    const timer = setTimeout(() => {
      evicted.delete(slug);
      void db.destroy();
    }, evictedHandleGraceMs);
    timer.unref();
    evicted.set(slug, { db, timer });
  };

  const open = new LRUCache<string, Kysely<TenantDatabase>>({
    max: tenantCacheSize,
    dispose: (db, slug) => closeLater(slug, db),
  });

  const tenantDb = (slug: string): Kysely<TenantDatabase> => {
    let db = open.get(slug);
    if (db) return db;
    const waiting = evicted.get(slug);
    if (waiting) {
      clearTimeout(waiting.timer);
      evicted.delete(slug);
      db = waiting.db;
    } else {
      db = kyselyFor<TenantDatabase>(openDatabase(tenantPath(slug), { fileMustExist: true }));
    }
    open.set(slug, db);
    return db;
  };

  const migrateTenant = async (slug: string) => {
    const db = kyselyFor<TenantDatabase>(openDatabase(tenantPath(slug), { fileMustExist: false }));
    try {
      await migrateToLatest(db, tenantMigrations, `tenant "${slug}"`);
    } finally {
      await db.destroy();
    }
  };

  return {
    dialect: 'sqlite',
    registry,
    tenantDb,
    provisionTenant: migrateTenant,
    migrateTenant,
    // AUTOINCREMENT already continues after the largest id ever inserted.
    syncIdSequences: async () => undefined,
    migrateRegistry: () => migrateToLatest(registry, registryMigrations, 'the registry'),
    ping: async () => {
      await registry.selectFrom('tenants').select('id').limit(1).execute();
    },
    close: async () => {
      open.clear();
      const handles = [...evicted.values()];
      evicted.clear();
      for (const { timer } of handles) clearTimeout(timer);
      await Promise.all(handles.map(({ db }) => db.destroy()));
      await registry.destroy();
    },
  };
}
