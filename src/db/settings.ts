import type { Kysely } from 'kysely';
import type { RegistryDatabase } from './types.js';

type Registry = Kysely<RegistryDatabase>;

export async function readSetting(registry: Registry, key: string): Promise<string | null> {
  const row = await registry.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value ?? null;
}

export async function writeSetting(registry: Registry, key: string, value: string, updatedAt: string): Promise<void> {
  await registry
    .insertInto('settings')
    .values({ key, value, updated_at: updatedAt })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: updatedAt }))
    .execute();
}

export async function deleteSetting(registry: Registry, key: string): Promise<void> {
  await registry.deleteFrom('settings').where('key', '=', key).execute();
}

/** The setting's value, writing `value` first when there is none; every process gets the same answer. */
export async function readOrCreateSetting(registry: Registry, key: string, value: string, updatedAt: string): Promise<string> {
  await registry
    .insertInto('settings')
    .values({ key, value, updated_at: updatedAt })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await readSetting(registry, key)) ?? value;
}
