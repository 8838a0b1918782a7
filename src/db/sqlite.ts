import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, SqliteDriver, SqliteQueryCompiler, type DatabaseConnection, type Driver, type QueryCompiler, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { OutboxRow } from './invalidation/queries.js';
import { RowBuildingStatement, type StatementSource } from './sqlite-rows.js';
import { createInvalidationRelay } from './invalidation/relay.js';
import { WriteWatchingDriver } from './invalidation/watched-driver.js';
import { registryMigrations, tenantMigrationsFor, type TenantFacts } from './migrations/index.js';
import { migrateToLatest, type Storage } from './storage.js';
import type { RegistryDatabase, TenantDatabase } from './types.js';

// HOT PATH (see docs/architecture.md): readNow runs the token lookup synchronously on a statement prepared once per connection.

const PREPARED_STATEMENTS_PER_CONNECTION = 64;
/** How often open tenant files are checked for idleness. */
const IDLE_SWEEP_MS = 1000;
/**
 * Sweeps without a query before a tenant file is closed. A closed file costs ~0.3 ms to reopen
 * (and a checkpoint when it closes after writes); an open one holds ~190 KB of resident memory
 * even after its page cache is given back, so tenants that went quiet are closed after about a minute.
 */
const CLOSE_AFTER_IDLE_SWEEPS = 60;
/** better-sqlite3 waits synchronously for a lock held by another process (a CLI command, a worker). */
const BUSY_TIMEOUT_MS = 2000;

/**
 * Opens a database with this service's settings. WAL keeps readers and the writer apart; NORMAL
 * sync is still durable against a process crash. WAL is a property of the file, so it is set once
 * per file and process rather than on every reopen.
 */
function openConnection(path: string, options: { fileMustExist: boolean; setWal: boolean }): BetterSqlite3.Database {
  const db = new BetterSqlite3(path, { fileMustExist: options.fileMustExist, timeout: BUSY_TIMEOUT_MS });
  try {
    if (options.setWal) db.pragma('journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * A connection with its prepared statements kept: Kysely prepares every query anew. Kysely's
 * statements read arrays (see sqlite-rows.ts), so they are kept apart from those of readNow.
 */
class OpenConnection {
  private readonly statements = new LRUCache<string, BetterSqlite3.Statement>({ max: PREPARED_STATEMENTS_PER_CONNECTION });
  private readonly kyselyStatements = new LRUCache<string, RowBuildingStatement>({ max: PREPARED_STATEMENTS_PER_CONNECTION });
  private readonly schemaVersionStatement: BetterSqlite3.Statement;
  /** For RowBuildingStatement: fresh statements (object mode) and the schema's version. */
  private readonly source: StatementSource;
  constructor(readonly raw: BetterSqlite3.Database) {
    this.schemaVersionStatement = raw.prepare('pragma schema_version').pluck();
    this.source = { prepare: (sql) => raw.prepare(sql), schemaVersion: () => this.schemaVersionStatement.get() as number };
  }

  prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.raw.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  prepareForKysely(sql: string): RowBuildingStatement {
    let statement = this.kyselyStatements.get(sql);
    if (!statement) {
      statement = new RowBuildingStatement(this.source, sql);
      this.kyselyStatements.set(sql, statement);
    }
    return statement;
  }
}

/**
 * One SQLite file, reached through a Kysely instance that lives as long as the storage, while
 * the connection behind it is opened on demand and closed when the file has not been used for a
 * while (see createSqliteStorage). Kysely sees an ordinary better-sqlite3 database.
 */
export class SqliteFile implements SqliteDatabase {
  private connection: OpenConnection | null = null;
  private walSet = false;
  /** Kysely connections handed out and not yet released (a transaction holds one across awaits). */
  private inUse = 0;
  /** Dropped from the open set while in use: closed as soon as the last user releases it. */
  private closeWhenReleased = false;
  /** Set by every query; the idle sweep reads and clears it (cheaper than a clock per query). */
  private usedSinceSweep = false;
  private idleSweeps = 0;

  constructor(
    readonly path: string,
    private readonly openSet: { touch(file: SqliteFile): void; add(file: SqliteFile): void },
    /** Only while provisioning or migrating: a tenant file that went missing is an error, not a new tenant. */
    public createIfMissing = false,
  ) {}

  /** Open and staying open (not waiting to close once a transaction ends). */
  get isOpen(): boolean {
    return this.connection !== null && !this.closeWhenReleased;
  }

  /** The open connection, opening the file first when needed. Synchronous. */
  private open(): OpenConnection {
    this.usedSinceSweep = true;
    if (this.connection) {
      if (this.closeWhenReleased) {
        this.closeWhenReleased = false;
        this.openSet.add(this);
      } else {
        this.openSet.touch(this);
      }
      return this.connection;
    }
    const raw = openConnection(this.path, { fileMustExist: !this.createIfMissing, setWal: !this.walSet });
    this.walSet = true;
    this.connection = new OpenConnection(raw);
    this.openSet.add(this);
    return this.connection;
  }

  prepare(sql: string): SqliteStatement {
    return this.open().prepareForKysely(sql);
  }

  /** A prepared statement to run synchronously (storage.readNow: the hot path skips Kysely's promises). */
  prepareNow(sql: string): BetterSqlite3.Statement {
    return this.open().prepare(sql);
  }

  /** The open set dropped this file: close now, or when the transaction using it ends. */
  retire(): void {
    if (this.inUse > 0) this.closeWhenReleased = true;
    else this.close();
  }

  /**
   * Called once per sweep while the file is open. After one sweep without a query the page cache
   * is given back to the allocator (~80 KB, reused by other connections rather than returned to
   * the OS; the next query reads its pages again from the OS cache, ~50 us); after
   * CLOSE_AFTER_IDLE_SWEEPS the file asks to close.
   */
  sweep(): 'keep' | 'close' {
    if (this.usedSinceSweep || this.inUse > 0 || !this.connection) {
      this.usedSinceSweep = false;
      this.idleSweeps = 0;
      return 'keep';
    }
    this.idleSweeps++;
    if (this.idleSweeps === 1) this.connection.raw.pragma('shrink_memory');
    return this.idleSweeps >= CLOSE_AFTER_IDLE_SWEEPS ? 'close' : 'keep';
  }

  acquired(): void {
    this.inUse++;
  }

  released(): void {
    this.inUse--;
    if (this.inUse === 0 && this.closeWhenReleased) {
      this.closeWhenReleased = false;
      this.close();
    }
  }

  close(): void {
    const connection = this.connection;
    this.connection = null;
    connection?.raw.close();
  }
}

/** Kysely's SQLite driver, telling the file when a connection is handed out and given back. */
class SqliteFileDriver extends SqliteDriver {
  constructor(private readonly file: SqliteFile) {
    super({ database: file });
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.file.acquired();
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    this.file.released();
    await super.releaseConnection();
  }

  /**
   * Transactions take the write lock when they begin. A deferred transaction that reads and then
   * writes (a registration reads the seats left, then takes one) fails at once with SQLITE_BUSY
   * when another process (a worker, the CLI) wrote in between; an immediate one waits for its turn
   * (busy timeout) and then reads what that other writer left.
   */
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(BEGIN_IMMEDIATE);
  }
}

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');

/**
 * Kysely's query compiler keeps no state between compilations (each is synchronous), yet each
 * instance binds ~100 visitor functions (~5 KB): one instance serves every tenant file.
 */
const sharedQueryCompiler = new SqliteQueryCompiler();

class SqliteFileDialect extends SqliteDialect {
  constructor(
    private readonly file: SqliteFile,
    /** For tenant files: counts every write, and relays the outbox after those that may announce (db/invalidation). */
    private readonly afterWrites?: (seen: OutboxRow[], mayAnnounce: boolean) => Promise<void>,
  ) {
    super({ database: file });
  }

  override createDriver(): Driver {
    const driver = new SqliteFileDriver(this.file);
    const { afterWrites, file } = this;
    return afterWrites ? new WriteWatchingDriver(driver, '"cache_changes"', afterWrites, () => !file.createIfMissing) : driver;
  }

  override createQueryCompiler(): QueryCompiler {
    return sharedQueryCompiler;
  }
}

/** The file behind each Kysely instance of this storage, for readNow. */
const filesOfKysely = new WeakMap<object, SqliteFile>();

const kyselyFor = <T>(file: SqliteFile, afterWrites?: (seen: OutboxRow[], mayAnnounce: boolean) => Promise<void>): Kysely<T> => {
  const db = new Kysely<T>({ dialect: new SqliteFileDialect(file, afterWrites) });
  filesOfKysely.set(db, file);
  return db;
};

export interface SqliteStorageOptions {
  dataDir: string;
  /** How many tenant databases may be open at once; the least recently used beyond are closed. */
  tenantCacheSize: number;
  /** Tests shorten it; see IDLE_SWEEP_MS. */
  idleSweepMs?: number;
}

/**
 * One SQLite file for the registry, one per tenant. Each open connection costs about 190 KB of
 * resident memory (65 KB on opening, the rest once read; see docs/benchmarks/design.md), so only
 * the `tenantCacheSize` most recently used tenant files stay open, and idle ones are closed after
 * about a minute; the others are reopened (about 0.3 ms) when next needed. Every file has at most
 * one connection: SQLite keeps a closed connection's file descriptor while another connection of
 * the same process has that file open, so two connections to one file would leak descriptors.
 */
export function createSqliteStorage({ dataDir, tenantCacheSize, idleSweepMs = IDLE_SWEEP_MS }: SqliteStorageOptions): Storage {
  const tenantDir = join(dataDir, 'tenants');
  mkdirSync(tenantDir, { recursive: true });

  const openFiles = new LRUCache<string, SqliteFile>({
    max: tenantCacheSize,
    dispose: (file, _path, reason) => {
      if (reason === 'evict' || reason === 'delete') file.retire();
    },
  });
  const openSet = {
    touch: (file: SqliteFile) => void openFiles.get(file.path),
    add: (file: SqliteFile) => void openFiles.set(file.path, file),
  };
  // Idle tenants give memory back: the page cache after a second, the connection after a minute.
  const idleSweep = setInterval(() => {
    for (const file of [...openFiles.values()]) {
      if (file.sweep() === 'close') openFiles.delete(file.path);
    }
  }, idleSweepMs);
  idleSweep.unref();
  // The registry stays open: every instance reads it several times a second.
  const registryFile = new SqliteFile(join(dataDir, 'registry.sqlite'), { touch: () => undefined, add: () => undefined }, true);
  const registry = kyselyFor<RegistryDatabase>(registryFile);

  // Kysely instances are plain objects once their connection is closed: one per tenant, kept.
  const tenants = new Map<string, { db: Kysely<TenantDatabase>; file: SqliteFile }>();
  const tenantFile = (slug: string) => {
    let tenant = tenants.get(slug);
    if (!tenant) {
      const file = new SqliteFile(join(tenantDir, `${slug}.sqlite`), openSet);
      tenant = { db: kyselyFor<TenantDatabase>(file, (seen, mayAnnounce) => invalidations.afterWrite(slug, seen, mayAnnounce)), file };
      tenants.set(slug, tenant);
    }
    return tenant;
  };

  const invalidations = createInvalidationRelay({ registry, dialect: 'sqlite', tenantDb: (slug) => tenantFile(slug).db });

  const migrateTenant = async (slug: string, facts: TenantFacts) => {
    // The tenant's own instance: a second connection to the file would keep descriptors open.
    const { db, file } = tenantFile(slug);
    file.createIfMissing = true;
    try {
      await migrateToLatest(db, tenantMigrationsFor(facts), `tenant "${slug}"`);
    } finally {
      file.createIfMissing = false;
      // Every tenant is migrated at start; requests, not the start, decide which stay open.
      openFiles.delete(file.path);
    }
  };

  return {
    dialect: 'sqlite',
    registry,
    tenantDb: (slug) => tenantFile(slug).db,
    isTenantOpen: (slug) => tenants.get(slug)?.file.isOpen ?? false,
    readNow: <R>(db: object, sql: string, parameters: readonly unknown[]) => {
      const file = filesOfKysely.get(db);
      if (!file) return null;
      return { row: file.prepareNow(sql).get(...parameters) as R | undefined };
    },
    invalidations,
    provisionTenant: migrateTenant,
    migrateTenant,
    // AUTOINCREMENT already continues after the largest id ever inserted.
    syncIdSequences: async () => undefined,
    // SQLite picks the look-ups' indexes without statistics (the re-read of 20,000 rows: 0.8 s).
    refreshStatistics: async () => undefined,
    migrateRegistry: () => migrateToLatest(registry, registryMigrations, 'the registry'),
    ping: async () => {
      await registry.selectFrom('tenants').select('id').limit(1).execute();
    },
    close: async () => {
      clearInterval(idleSweep);
      openFiles.clear();
      for (const { file } of tenants.values()) file.close();
      tenants.clear();
      registryFile.close();
    },
  };
}
