import { createHash } from 'node:crypto';
import pg from 'pg';
import {
  Kysely,
  PostgresDialect,
  PostgresQueryCompiler,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type Driver,
  type PostgresDialectConfig,
  type QueryCompiler,
  type TableMetadata,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import { PreparingClient } from './prepared-client.js';
import { ReadPipes, ReadPipingDriver } from './read-pipes.js';
import type { OutboxRow } from './invalidation/queries.js';
import { createInvalidationRelay } from './invalidation/relay.js';
import { WriteWatchingDriver } from './invalidation/watched-driver.js';
import { registryMigrations, tenantMigrationsFor, type TenantFacts } from './migrations/index.js';
import { migrateToLatest, type Storage } from './storage.js';
import type { RegistryDatabase, TenantDatabase } from './types.js';

/** The registry's schema; each tenant has a schema of its own (tenantSchema). */
export const REGISTRY_SCHEMA = 'groupadmin';
const MAX_IDENTIFIER_LENGTH = 63;

/**
 * `tenant_<slug>` with hyphens as underscores. PostgreSQL cuts identifiers at 63 bytes, so a slug
 * too long for that keeps its start and gets a hash of the whole slug, to stay unique.
 */
export function tenantSchema(slug: string): string {
  const schema = `tenant_${slug.replace(/-/g, '_')}`;
  if (schema.length <= MAX_IDENTIFIER_LENGTH) return schema;
  const digest = createHash('sha256').update(slug).digest('hex').slice(0, 8);
  return `${schema.slice(0, MAX_IDENTIFIER_LENGTH - 9)}_${digest}`;
}

// Values come back as the SQLite dialect gives them: int8 (ids, counts) as numbers, and
// timestamps as the text PostgreSQL wrote, never as Dates shifted by the local time zone.
const INT8 = 20;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;
export const pgTypeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8) return (value: string) => Number(value);
    if (oid === TIMESTAMP || oid === TIMESTAMPTZ) return (value: string) => value;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

/**
 * PostgreSQL for Kysely's migrator, which asks the introspector for every table of the database
 * (with each column's serial sequence) only to see whether its two bookkeeping tables exist. With a
 * schema per tenant that grew with every tenant: setting up 1,000 tenants took over ten minutes.
 * This introspector answers that question with one light catalog query.
 */
class MigrationDialect extends PostgresDialect {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    const full = super.createIntrospector(db);
    return {
      getSchemas: () => full.getSchemas(),
      getMetadata: (options?: DatabaseMetadataOptions) => full.getMetadata(options),
      getTables: async (): Promise<TableMetadata[]> => {
        const { rows } = await sql<{ schema: string; name: string }>`
          select n.nspname as schema, c.relname as name
          from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          where c.relkind in ('r', 'p') and c.relname in ('kysely_migration', 'kysely_migration_lock')`.execute(db);
        return rows.map((row) => ({ ...row, isView: false, columns: [] }));
      },
    };
  }
}

/** Kysely's query compiler keeps no state between compilations: one serves every tenant. */
const sharedQueryCompiler = new PostgresQueryCompiler();

/**
 * A tenant's dialect: the shared pool and read pipes (read-pipes.ts), and a driver that counts
 * every write and relays the tenant's outbox of cache changes after those that name users or
 * tokens (db/invalidation). A Kysely instance per tenant costs a few small objects; the pool, the
 * pipes and the compiler are shared.
 */
class TenantDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly reads: ReadPipes,
    private readonly schema: string,
    private readonly afterWrites: (seen: OutboxRow[], mayAnnounce: boolean) => Promise<void>,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new WriteWatchingDriver(new ReadPipingDriver(super.createDriver(), this.reads), `"${this.schema}"."cache_changes"`, this.afterWrites);
  }

  override createQueryCompiler(): QueryCompiler {
    return sharedQueryCompiler;
  }
}

export interface PostgresStorageOptions {
  databaseUrl: string;
  poolSize?: number;
}

/**
 * All tenants share one connection pool. Every query names its schema (Kysely's withSchema):
 * search_path is never switched on a shared connection, so no query can land in another tenant.
 */
export function createPostgresStorage({ databaseUrl, poolSize = 10 }: PostgresStorageOptions): Storage {
  // Fail fast while the database is away (the request gets 503) instead of queueing forever.
  const connectionTimeoutMillis = 3000;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    // Connections stay open once opened: a new one costs the database a process and cold catalog
    // caches, which a registration storm after a quiet minute paid for (about 200 ms of 1.8 s).
    min: poolSize,
    types: pgTypeParsers,
    // Names the statements that repeat (prepared-client.ts).
    Client: PreparingClient,
    connectionTimeoutMillis,
  });
  const reads = new ReadPipes({ databaseUrl, types: pgTypeParsers, connectionTimeoutMillis });
  // A connection the server drops must not take the process down: idle ones report to the pool,
  // and one in use reports to its client (its query fails too, which the caller sees as a 503).
  // The pool then discards it and opens a new one for the next query.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const root = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  // The same pool; used only to run migrations (never destroyed itself: root.destroy() ends the pool).
  const migrationRoot = new Kysely<unknown>({ dialect: new MigrationDialect({ pool }) });
  const registry = root.withSchema(REGISTRY_SCHEMA) as unknown as Kysely<RegistryDatabase>;
  const handles = new LRUCache<string, Kysely<TenantDatabase>>({ max: 10_000 });

  const tenantDb = (slug: string) => {
    let db = handles.get(slug);
    if (!db) {
      // Never destroyed: destroying it would end the shared pool (root.destroy() does that).
      const schema = tenantSchema(slug);
      const own = new Kysely<unknown>({ dialect: new TenantDialect({ pool }, reads, schema, (seen, mayAnnounce) => invalidations.afterWrite(slug, seen, mayAnnounce)) });
      db = own.withSchema(schema) as unknown as Kysely<TenantDatabase>;
      handles.set(slug, db);
    }
    return db;
  };
  const invalidations = createInvalidationRelay({ registry, dialect: 'postgres', tenantDb });

  const migrateTenant = async (slug: string, facts: TenantFacts) => {
    const schema = tenantSchema(slug);
    await sql`create schema if not exists ${sql.id(schema)}`.execute(root);
    await migrateToLatest(migrationRoot.withSchema(schema), tenantMigrationsFor(facts), `tenant "${slug}"`, schema);
  };

  return {
    dialect: 'postgres',
    registry,
    tenantDb,
    isTenantOpen: () => true,
    // pg answers through promises only.
    readNow: () => null,
    invalidations,
    provisionTenant: migrateTenant,
    migrateTenant,
    syncIdSequences: async (slug, tables) => {
      const schema = tenantSchema(slug);
      for (const table of tables) {
        // Schema and table names are ours (tenantSchema, a fixed list), never user input.
        const qualified = `"${schema}"."${table}"`;
        // Past the largest id, and never back: a writer beside the import may hold numbers above
        // it, and a multi-row insert relies on its rows' numbers rising (statement-chunks.ts).
        await sql`select setval(pg_get_serial_sequence(${qualified}, 'id'), greatest(coalesce(max(id), 0) + 1, nextval(pg_get_serial_sequence(${qualified}, 'id'))), false) from ${sql.id(schema, table)}`.execute(root);
      }
    },
    refreshStatistics: async (slug, tables) => {
      // Until autovacuum comes by (a minute or more), a table that grew from few rows to 20,000
      // keeps the statistics of few: the import's cached plans then scanned it whole for each of
      // its look-ups, and importing the same file again took 13.5 s instead of 1.
      for (const table of tables) await sql`analyze ${sql.id(tenantSchema(slug), table)}`.execute(root);
    },
    migrateRegistry: async () => {
      await sql`create schema if not exists ${sql.id(REGISTRY_SCHEMA)}`.execute(root);
      await migrateToLatest(migrationRoot.withSchema(REGISTRY_SCHEMA), registryMigrations, 'the registry', REGISTRY_SCHEMA);
    },
    ping: async () => {
      await sql`select 1`.execute(root);
    },
    close: async () => {
      await reads.close();
      await root.destroy();
    },
  };
}
