import { countTenants, findTenantBySlug, insertTenant, listTenants, updateTenantTimezone, type TenantRow } from './queries.js';
import type { TenantRecord } from './schemas.js';
import { latestTenantMigration } from '../../db/migrations/index.js';
import { readSetting, writeSetting } from '../../db/settings.js';
import type { Storage } from '../../db/storage.js';
import { slugProblem } from '../../lib/tenant-hosts.js';
import { toDbTimestamp, canonicalTimeZone } from '../../lib/time.js';

export class TenantError extends Error {
  override name = 'TenantError';
}

/**
 * Creates a tenant: its database first (file or schema, fully migrated), then its registry row,
 * so no request ever finds a tenant whose tables are not there yet. Its time zone is `timeZone`
 * (an IANA name, checked before anything is created), UTC when none is given.
 */
export async function createTenant(storage: Storage, slug: string, name?: string, timeZone?: string): Promise<TenantRow> {
  const problem = slugProblem(slug);
  if (problem) throw new TenantError(problem);
  const timezone = timeZone === undefined ? null : canonicalTimeZone(timeZone);
  if (timeZone !== undefined && !timezone) throw new TenantError(notAZone(timeZone));
  if (await findTenantBySlug(storage.registry, slug)) throw new TenantError(`tenant "${slug}" already exists`);
  await storage.provisionTenant(slug, { name: name ?? slug });
  const row = await insertTenant(storage.registry, { slug, name: name ?? slug, created_at: toDbTimestamp(new Date()) });
  if (!timezone || timezone === row.timezone) return row;
  await updateTenantTimezone(storage.registry, slug, timezone);
  return requireTenant(storage, slug);
}

const notAZone = (zone: string) => `"${zone}" is not a time zone: use an IANA name such as Europe/Zurich`;

/** Every tenant, by slug. */
export const listAllTenants = (storage: Pick<Storage, 'registry'>): Promise<TenantRow[]> => listTenants(storage.registry);

/** Whether no tenant exists yet (a first start). */
export const hasNoTenants = async (storage: Pick<Storage, 'registry'>): Promise<boolean> => (await countTenants(storage.registry)) === 0;

/** The tenant with this slug, or a TenantError that names it. */
export async function requireTenant(storage: Storage, slug: string): Promise<TenantRow> {
  const tenant = await findTenantBySlug(storage.registry, slug);
  if (!tenant) throw new TenantError(`tenant "${slug}" not found`);
  return tenant;
}

/** Sets the tenant's time zone; a TenantError names a tenant or zone that does not exist. */
export async function setTenantTimezone(storage: Storage, slug: string, zone: string): Promise<TenantRow> {
  const timezone = canonicalTimeZone(zone);
  if (!timezone) throw new TenantError(notAZone(zone));
  await requireTenant(storage, slug);
  await updateTenantTimezone(storage.registry, slug, timezone);
  return requireTenant(storage, slug);
}

/** The tenant as GET /tenant shows it, read from the registry (not the host cache: a new zone shows at once). */
export async function findTenantRecord(storage: Pick<Storage, 'registry'>, slug: string): Promise<TenantRecord | null> {
  const row = await findTenantBySlug(storage.registry, slug);
  return row ? { slug: row.slug, name: row.name, timezone: row.timezone } : null;
}

/** Registry setting: the newest tenant migration every tenant has (written after migrating all). */
const TENANTS_MIGRATED_TO = 'tenants_migrated_to';


/**
 * Brings the registry and every tenant to the latest migration, and returns how many tenants
 * there are. With `onlyWhenBehind` (every start does this), the tenants are left alone when the
 * registry records that all of them already have the newest migration: checking a thousand
 * tenants one by one took longer than 30 s on PostgreSQL. Tenants created later are migrated when
 * they are created; `groupadmin migrate` checks every tenant (after restoring an old backup, say).
 */
export async function migrateAll(storage: Storage, options: { onlyWhenBehind?: boolean } = {}): Promise<number> {
  await storage.migrateRegistry();
  const tenants = await listTenants(storage.registry);
  const latest = await latestTenantMigration();
  if (options.onlyWhenBehind && (await readSetting(storage.registry, TENANTS_MIGRATED_TO)) === latest) return tenants.length;
  for (const tenant of tenants) await storage.migrateTenant(tenant.slug, tenant);
  await writeSetting(storage.registry, TENANTS_MIGRATED_TO, latest, toDbTimestamp(new Date()));
  return tenants.length;
}
