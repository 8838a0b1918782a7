import { findTenantBySlug, insertTenant, listTenants, type TenantRow } from '../db/tenants.js';
import type { Storage } from '../db/storage.js';
import { slugProblem } from './tenants.js';
import { toDbTimestamp } from './time.js';

export class TenantError extends Error {
  override name = 'TenantError';
}

/**
 * Creates a tenant: its database first (file or schema, fully migrated), then its registry row,
 * so no request ever finds a tenant whose tables are not there yet.
 */
export async function createTenant(storage: Storage, slug: string, name?: string): Promise<TenantRow> {
  const problem = slugProblem(slug);
  if (problem) throw new TenantError(problem);
  if (await findTenantBySlug(storage.registry, slug)) throw new TenantError(`tenant "${slug}" already exists`);
  await storage.provisionTenant(slug);
  return insertTenant(storage.registry, { slug, name: name ?? slug, created_at: toDbTimestamp(new Date()) });
}

/** The tenant with this slug, or a TenantError that names it. */
export async function requireTenant(storage: Storage, slug: string): Promise<TenantRow> {
  const tenant = await findTenantBySlug(storage.registry, slug);
  if (!tenant) throw new TenantError(`tenant "${slug}" not found`);
  return tenant;
}

/** Brings the registry and every tenant to the latest migration. */
export async function migrateAll(storage: Storage): Promise<number> {
  await storage.migrateRegistry();
  const tenants = await listTenants(storage.registry);
  for (const tenant of tenants) await storage.migrateTenant(tenant.slug);
  return tenants.length;
}
