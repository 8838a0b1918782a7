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

export function insertTenant(registry: Registry, tenant: Omit<TenantRow, 'id' | 'timezone' | 'locale'> & Partial<Pick<TenantRow, 'timezone' | 'locale'>>): Promise<TenantRow> {
  return registry.insertInto('tenants').values(tenant).returningAll().executeTakeFirstOrThrow();
}

/** Changes the settings given; false when no tenant has this slug. */
export async function updateTenantSettings(registry: Registry, slug: string, settings: Partial<Pick<TenantRow, 'name' | 'timezone' | 'locale'>>): Promise<boolean> {
  if (Object.keys(settings).length === 0) return (await findTenantBySlug(registry, slug)) !== undefined;
  const result = await registry.updateTable('tenants').set(settings).where('slug', '=', slug).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function countTenants(registry: Registry): Promise<number> {
  const row = await registry
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
