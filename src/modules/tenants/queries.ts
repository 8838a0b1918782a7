import type { Kysely, Selectable } from 'kysely';
import type { RegistryDatabase, TenantsTable } from '../../db/types.js';

export type TenantRow = Selectable<TenantsTable>;
type Registry = Kysely<RegistryDatabase>;

export function findTenantBySlug(registry: Registry, slug: string): Promise<TenantRow | undefined> {
  return registry.selectFrom('tenants').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export function listTenants(registry: Registry): Promise<TenantRow[]> {
  return registry.selectFrom('tenants').selectAll().orderBy('slug').execute();
}

export function insertTenant(registry: Registry, tenant: Omit<TenantRow, 'id' | 'timezone'>): Promise<TenantRow> {
  return registry.insertInto('tenants').values(tenant).returningAll().executeTakeFirstOrThrow();
}

export async function updateTenantTimezone(registry: Registry, slug: string, timezone: string): Promise<void> {
  await registry.updateTable('tenants').set({ timezone }).where('slug', '=', slug).execute();
}

export async function countTenants(registry: Registry): Promise<number> {
  const row = await registry
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
