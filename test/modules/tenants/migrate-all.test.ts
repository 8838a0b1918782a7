import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSetting } from '../../../src/db/settings.js';
import type { Storage } from '../../../src/db/storage.js';
import { migrateAll } from '../../../src/modules/tenants/rules.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

describe('migrating every tenant', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await t.addTenant('acme');
  });
  afterEach(() => t.close());

  /** The test app's storage, counting the tenants it is asked to migrate. */
  const counting = () => {
    const migrated: string[] = [];
    const storage: Storage = { ...t.storage, migrateTenant: (slug, facts) => (migrated.push(slug), t.storage.migrateTenant(slug, facts)) };
    return { storage, migrated };
  };

  it('skips the tenants at start when the registry says all have the newest migration; migrate checks each', async () => {
    // The test app's own start recorded that every tenant is current.
    expect(await readSetting(t.storage.registry, 'tenants_migrated_to')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const atStart = counting();
    expect(await migrateAll(atStart.storage, { onlyWhenBehind: true })).toBe(2);
    expect(atStart.migrated).toEqual([]);

    const byCommand = counting();
    expect(await migrateAll(byCommand.storage)).toBe(2);
    expect(byCommand.migrated.sort()).toEqual(['acme', 'demo']);

    // An older record (a new version with a new tenant migration) makes the start migrate all.
    await t.storage.registry.updateTable('settings').set({ value: '2000-01-01T00-00-00-older' }).where('key', '=', 'tenants_migrated_to').execute();
    const afterUpgrade = counting();
    await migrateAll(afterUpgrade.storage, { onlyWhenBehind: true });
    expect(afterUpgrade.migrated.sort()).toEqual(['acme', 'demo']);
  });
});
