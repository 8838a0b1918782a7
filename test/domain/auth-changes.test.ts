import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { announceAuthChange, openAuthChangeFeed, type AuthChange, type AuthChangeFeed } from '../../src/domain/auth-changes.js';
import { toDbTimestamp } from '../../src/domain/time.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { sleep, waitFor } from '../helpers/wait.js';

const eventually = (condition: () => boolean) => waitFor(condition, 2000, 10);

describe('the token change feed', () => {
  let t: TestApp;
  const feeds: AuthChangeFeed[] = [];
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    for (const feed of feeds.splice(0)) await feed.stop();
    await t.close();
  });

  /** A feed as another instance would have it, recording what it hears. */
  const follow = async (options: { intervalMs?: number; trustMs?: number } = {}) => {
    const heard: AuthChange[] = [];
    const errors: unknown[] = [];
    let resets = 0;
    const feed = await openAuthChangeFeed(t.storage, {
      intervalMs: options.intervalMs ?? 50,
      trustMs: options.trustMs ?? 500,
      onChange: (change) => heard.push(change),
      onReset: () => resets++,
      onError: (err) => errors.push(err),
    });
    feeds.push(feed);
    return { feed, heard, errors, resets: () => resets };
  };

  it("brings one instance's changes and the CLI's to every other instance, in order, from now on", async () => {
    await announceAuthChange(t.storage, { tenant: 'demo', userId: 1, tokenId: null });
    const here = await follow();
    const there = await follow();
    await here.feed.publish({ tenant: 'demo', userId: null, tokenId: 7 });
    await announceAuthChange(t.storage, { tenant: 'acme', userId: 3, tokenId: null });
    const expected = [
      { tenant: 'demo', userId: null, tokenId: 7 },
      { tenant: 'acme', userId: 3, tokenId: null },
    ];
    await eventually(() => there.heard.length >= 2);
    // The change from before the feed was opened is not replayed.
    expect(there.heard).toEqual(expected);
    // The publishing instance applies its own change at once, and hears it again from the feed.
    expect(here.heard[0]).toEqual(expected[0]);
    await eventually(() => here.heard.length >= 3);
    expect(there.errors).toEqual([]);
  });

  it('is current only while it is being read; afterwards it starts afresh and sends what it kept', async () => {
    const here = await follow();
    const there = await follow();
    await eventually(() => there.feed.isCurrent());
    const registry = t.storage.registry;
    // The feed's table goes away: reads and announcements fail.
    await registry.schema.alterTable('auth_changes').renameTo('auth_changes_away').execute();
    try {
      await eventually(() => !there.feed.isCurrent());
      await here.feed.publish({ tenant: 'demo', userId: 5, tokenId: null });
      expect(here.errors.length).toBeGreaterThan(0);
      expect(here.heard).toEqual([{ tenant: 'demo', userId: 5, tokenId: null }]);
    } finally {
      await registry.schema.alterTable('auth_changes_away').renameTo('auth_changes').execute();
    }
    await eventually(() => there.feed.isCurrent() && there.resets() === 1);
    // The change made while the feed was away arrives once it is back.
    await eventually(() => there.heard.some((change) => change.userId === 5));
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
    await announceAuthChange(t.storage, { tenant: 'demo', userId: 2, tokenId: null });
    await follow();
    const remaining = async () => (await t.storage.registry.selectFrom('auth_changes').select('user_id').execute()).map((r) => Number(r.user_id));
    for (let i = 0; i < 100 && (await remaining()).includes(1); i++) await sleep(20);
    expect(await remaining()).toEqual([2]);
  });
});
