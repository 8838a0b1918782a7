import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTenantDirectory } from '../../../src/modules/tenants/directory.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { sleep } from '../../helpers/wait.js';

describe('tenant directory', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  it('answers a lookup whose entry made-up hosts pushed out while it was being read', async () => {
    const directory = createTenantDirectory(t.storage, { maxEntries: 2 });
    const demo = directory.find('demo');
    // A flood of unknown hosts evicts the entry still being read.
    const unknown = ['nope-1', 'nope-2', 'nope-3', 'nope-4'].map((slug) => directory.find(slug));
    expect((await demo)?.slug).toBe('demo');
    expect(await Promise.all(unknown)).toEqual([null, null, null, null]);
  });

  it('remembers a found tenant and asks again soon for a missing one', async () => {
    const directory = createTenantDirectory(t.storage, { missingTtlMs: 50 });
    expect(directory.peek('acme')).toBeUndefined();
    expect(await directory.find('acme')).toBeNull();
    expect(directory.peek('acme')).toBeNull();
    await t.addTenant('acme');
    await sleep(80);
    expect((await directory.find('acme'))?.slug).toBe('acme');
    expect(directory.peek('acme')?.slug).toBe('acme');
  });
});
