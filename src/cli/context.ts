import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { loadConfig, type Config } from '../config.js';
import { createStorage } from '../db/index.js';
import type { Storage } from '../db/storage.js';
import type { TenantDatabase } from '../db/types.js';
import { dayIn } from '../modules/permissions/calendar.js';
import { requireTenant } from '../modules/tenants/rules.js';
import { findUserRecord } from '../modules/users/rules.js';
import type { ApiUser } from '../modules/users/schemas.js';
import type { Day } from '../lib/time.js';

/** An expected failure: printed as one line on stderr, exit status 1. */
export class CliError extends Error {
  override name = 'CliError';
}

/** Runs a command with the configured storage open, and closes it whatever happens. */
export async function withStorage<T>(run: (storage: Storage, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const storage = await createStorage(config);
  try {
    await storage.migrateRegistry();
    const result = await run(storage, config);
    // What the command changed is in the tenants' outboxes; it must reach the running servers.
    await storage.invalidations.retryPending().catch((err: unknown) => {
      throw new CliError(`the change was saved, but the running servers could not be told of it yet: ${(err as Error).message ?? String(err)}`);
    });
    return result;
  } finally {
    await storage.close();
  }
}

/** The tenant's database, migrated to the latest version; a CliError when the tenant does not exist. */
export async function tenantDatabase(storage: Storage, slug: string): Promise<Kysely<TenantDatabase>> {
  return (await openTenant(storage, slug)).db;
}

/** The tenant's database (as tenantDatabase) and its date today, for commands that act on roles. */
export async function openTenant(storage: Storage, slug: string): Promise<{ db: Kysely<TenantDatabase>; today: Day }> {
  const tenant = await requireTenant(storage, slug);
  await storage.migrateTenant(slug, tenant);
  return { db: storage.tenantDb(slug), today: dayIn(tenant.timezone, new Date()) };
}

export async function requireUser(db: Kysely<TenantDatabase>, tenant: string, username: string): Promise<ApiUser> {
  const user = await findUserRecord(db, username);
  if (!user) throw new CliError(`user "${username}" not found in tenant "${tenant}"`);
  return user;
}

/** The password piped to standard input, without the line break a shell adds. */
export function readPasswordFromStdin(): string {
  const input = readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  if (input === '') throw new CliError('no password on standard input');
  return input;
}

/**
 * After a large import, committed already: statistics that cannot be refreshed now are worth a line
 * on stderr, not a failed command (autovacuum refreshes them later; only speed waits for it).
 */
export function statisticsNotRefreshed(err: unknown): void {
  process.stderr.write(`groupadmin: the database's statistics were not refreshed (${(err as Error).message ?? String(err)}); the import is complete\n`);
}
