import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCacheChangeFeed, type CacheChangeFeed } from '../../src/db/invalidation/feed.js';
import type { CacheChange } from '../../src/db/invalidation/queries.js';
import { toDbTimestamp } from '../../src/lib/time.js';
import { issueToken, revokeToken } from '../../src/modules/tokens/rules.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { deactivateUser } from '../../src/modules/auth/accounts.js';

const eventually = (condition: () => boolean) => waitFor(condition, 2000, 10);

describe('the feed of cache changes', () => {
  let t: TestApp;
  const feeds: CacheChangeFeed[] = [];
  beforeEach(async () => {
    t = await buildTestApp();
    await t.addTenant('acme');
  });
  afterEach(async () => {
    for (const feed of feeds.splice(0)) await feed.stop();
    await t.close();
  });

  /** A feed as another instance would have it, recording what it hears. */
  const follow = async (options: { intervalMs?: number; trustMs?: number } = {}) => {
    const heard: CacheChange[] = [];
    const errors: unknown[] = [];
    let resets = 0;
    const feed = await openCacheChangeFeed(t.storage, {
      intervalMs: options.intervalMs ?? 50,
      trustMs: options.trustMs ?? 500,
      onChange: (change) => heard.push(change),
      onReset: () => resets++,
      onError: (err) => errors.push(err),
    });
    feeds.push(feed);
    return { feed, heard, errors, resets: () => resets };
  };

  /** What this process relays, as its own caches hear it. */
  const relayedHere = () => {
    const heard: CacheChange[] = [];
    const unsubscribe = t.storage.invalidations.subscribe((change) => heard.push(change));
    return { heard, unsubscribe };
  };

  it("brings every instance's committed changes to every other instance, in order, from now on", async () => {
    const alice = await t.addUser('demo');
    const bob = await t.addUser('acme', { username: 'bob' });
    const token = await issueToken(t.storage.tenantDb('demo'), alice.id, { tokenPrefix: '' });
    await deactivateUser(t.storage.tenantDb('acme'), bob.id);
    const there = await follow();
    const here = relayedHere();
    await revokeToken(t.storage.tenantDb('demo'), alice.id, token.accessToken.id);
    await t.storage.tenantDb('acme').updateTable('users').set({ city: 'Bern' }).where('id', '=', bob.id).execute();
    const expected = [
      { tenant: 'demo', userId: null, tokenId: token.accessToken.id },
      { tenant: 'acme', userId: bob.id, tokenId: null },
    ];
    // This process heard each change before the write returned.
    expect(here.heard).toEqual(expected);
    here.unsubscribe();
    await eventually(() => there.heard.length >= 2);
    // The changes from before the feed was opened are not replayed.
    expect(there.heard).toEqual(expected);
    expect(there.errors).toEqual([]);
  });

  it('is current only while it is being read; afterwards it starts afresh and sends what was kept', async () => {
    const alice = await t.addUser('demo');
    const there = await follow();
    await eventually(() => there.feed.isCurrent());
    const registry = t.storage.registry;
    // The feed's table goes away: reads and announcements fail.
    await registry.schema.alterTable('auth_changes').renameTo('auth_changes_away').execute();
    const here = relayedHere();
    try {
      await eventually(() => !there.feed.isCurrent());
      // The write succeeds; its announcement waits in the tenant's outbox.
      await deactivateUser(t.storage.tenantDb('demo'), alice.id);
      expect(here.heard).toEqual([{ tenant: 'demo', userId: alice.id, tokenId: null }]);
      expect(await t.storage.tenantDb('demo').selectFrom('cache_changes').selectAll().execute()).toHaveLength(1);
      expect(there.errors.length).toBeGreaterThan(0);
    } finally {
      here.unsubscribe();
      await registry.schema.alterTable('auth_changes_away').renameTo('auth_changes').execute();
    }
    await eventually(() => there.feed.isCurrent() && there.resets() === 1);
    // The change made while the feed was away arrives once it is back, and leaves the outbox.
    await eventually(() => there.heard.some((change) => change.userId === alice.id));
    expect(await t.storage.tenantDb('demo').selectFrom('cache_changes').selectAll().execute()).toEqual([]);
  });

  it('stops being current when it has not been read for trustMs', async () => {
    const { feed } = await follow({ intervalMs: 60_000, trustMs: 100 });
    expect(feed.isCurrent()).toBe(true);
    await sleep(150);
    expect(feed.isCurrent()).toBe(false);
  });

  it('prunes changes older than ten minutes', async () => {
    const old = toDbTimestamp(new Date(Date.now() - 11 * 60_000));
    await t.storage.registry.insertInto('auth_changes').values({ tenant: 'demo', user_id: 1, token_id: null, created_at: old }).execute();
    const alice = await t.addUser('demo');
    await deactivateUser(t.storage.tenantDb('demo'), alice.id);
    await follow();
    const remaining = async () => (await t.storage.registry.selectFrom('auth_changes').select('user_id').execute()).map((r) => Number(r.user_id));
    for (let i = 0; i < 100 && (await remaining()).includes(1); i++) await sleep(20);
    expect(await remaining()).toEqual([alice.id]);
  });
});
