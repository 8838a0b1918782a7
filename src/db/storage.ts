import { Migrator, type Kysely, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Invalidations } from './invalidation/relay.js';
import type { TenantFacts } from './migrations/index.js';
import type { RegistryDatabase, TenantDatabase } from './types.js';

/** What readNow found: the first row, if any. */
export interface ReadNowResult<R> {
  row: R | undefined;
}

/**
 * Where the registry and each tenant's tables live. The rest of the service sees only this
 * interface, so it runs unchanged on the SQLite default and on PostgreSQL.
 */
export interface Storage {
  readonly dialect: 'sqlite' | 'postgres';
  readonly registry: Kysely<RegistryDatabase>;
  /** The handle for a tenant that exists in the registry; cheap to call on every request. */
  tenantDb(slug: string): Kysely<TenantDatabase>;
  /**
   * Whether a write to the tenant costs no more than the write itself: always on PostgreSQL (one
   * shared pool); on SQLite, while the tenant's file is open. Writes that may wait (last_used_at)
   * wait for it, for a while.
   */
  isTenantOpen(slug: string): boolean;
  /**
   * Runs a read at once, without a promise, where the storage can (SQLite: better-sqlite3 answers
   * synchronously), with a statement prepared once per connection; null where it cannot
   * (PostgreSQL). Only the GET /api/user hot path uses it (modules/tokens/verifier.ts).
   */
  readNow<R>(db: Kysely<TenantDatabase>, sql: string, parameters: readonly unknown[]): ReadNowResult<R> | null;
  /** Changes to cached rows, relayed after writes that name users or tokens; every write is counted (db/invalidation/relay.ts). */
  readonly invalidations: Invalidations;
  /** Creates the tenant's database (file or schema) and migrates it to the latest version. */
  provisionTenant(slug: string, tenant: TenantFacts): Promise<void>;
  migrateRegistry(): Promise<void>;
  migrateTenant(slug: string, tenant: TenantFacts): Promise<void>;
  /** After rows were inserted with explicit ids: the next generated id follows the largest one. */
  syncIdSequences(slug: string, tables: readonly ('users' | 'personal_access_tokens')[]): Promise<void>;
  /**
   * After many rows were written at once (an import): the query planner reads these tables'
   * statistics again, so the next statements use their indexes (PostgreSQL; SQLite needs none).
   */
  refreshStatistics(slug: string, tables: readonly ('users' | 'memberships')[]): Promise<void>;
  /** Throws when the storage cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function migrateToLatest(db: Kysely<any>, provider: MigrationProvider, label: string, schema?: string) {
  const migrator = new Migrator({
    db,
    provider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    throw new MigrationError(
      `migration ${failed?.migrationName ?? '(unknown)'} of ${label} failed: ${String(
        (result.error as Error).message ?? result.error,
      )}`,
    );
  }
}
