import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/modules/tokens/rules.js';
import { createLastUseRecorder } from '../../../src/modules/tokens/last-use.js';
import { toApiTimestampOrNull } from '../../../src/lib/time.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { sleep, waitFor } from '../../helpers/wait.js';

describe('last-use recorder', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  it('writes nothing until a batch, then every noted use, and stop() writes the rest', async () => {
    const user = await t.addUser('demo');
    const db = t.storage.tenantDb('demo');
    // One after another, so ids follow the array's order.
    const tokens = [];
    for (let i = 0; i < 3; i++) tokens.push(await issueToken(db, user.id, { tokenPrefix: '' }));
    const errors: unknown[] = [];
    const recorder = createLastUseRecorder({ flushIntervalMs: 60_000, onError: (err) => errors.push(err) });
    const at = new Date('2026-11-21T10:00:00.000Z');
    for (const token of tokens) recorder.record('demo', db, token.accessToken.id, at);
    const lastUsed = async () =>
      (await db.selectFrom('personal_access_tokens').select('last_used_at').orderBy('id').execute()).map((row) =>
        toApiTimestampOrNull(row.last_used_at),
      );
    expect(await lastUsed()).toEqual([null, null, null]);
    await recorder.flush();
    expect(await lastUsed()).toEqual(Array(3).fill('2026-11-21T10:00:00.000000Z'));

    // Within the minute, a newer use is not written again; after it, it is.
    recorder.record('demo', db, tokens[0]!.accessToken.id, new Date('2026-11-21T10:00:30.000Z'));
    recorder.record('demo', db, tokens[1]!.accessToken.id, new Date('2026-11-21T10:01:30.000Z'));
    await recorder.stop();
    expect(await lastUsed()).toEqual(['2026-11-21T10:00:00.000000Z', '2026-11-21T10:01:30.000000Z', '2026-11-21T10:00:00.000000Z']);
    expect(errors).toEqual([]);
  });

  it('writes a batch of more uses than one statement takes, each token its own time', async () => {
    const user = await t.addUser('demo');
    const db = t.storage.tenantDb('demo');
    const ids: number[] = [];
    for (let i = 0; i < 501; i++) ids.push((await issueToken(db, user.id, { tokenPrefix: '' })).accessToken.id);
    const recorder = createLastUseRecorder({ flushIntervalMs: 60_000, onError: (err) => { throw err; } });
    const atOf = (i: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, i % 60, 0) + Math.floor(i / 60) * 60_000);
    ids.forEach((id, i) => recorder.record('demo', db, id, atOf(i)));
    await recorder.stop();
    const rows = await db.selectFrom('personal_access_tokens').select(['id', 'last_used_at']).orderBy('id').execute();
    expect(rows.map((row) => toApiTimestampOrNull(row.last_used_at))).toEqual(ids.map((_, i) => atOf(i).toISOString().replace('.000Z', '.000000Z')));
  });

  it('writes uses in an open tenant with the next batch, and in a closed one only after the delay', async () => {
    const user = await t.addUser('demo');
    const db = t.storage.tenantDb('demo');
    const token = await issueToken(db, user.id, { tokenPrefix: '' });
    let open = false;
    const recorder = createLastUseRecorder({ flushIntervalMs: 50, isOpen: () => open, closedDelayMs: 600, onError: (err) => { throw err; } });
    const lastUsed = async () =>
      toApiTimestampOrNull((await db.selectFrom('personal_access_tokens').select('last_used_at').executeTakeFirstOrThrow()).last_used_at);
    try {
      const started = Date.now();
      recorder.record('demo', db, token.accessToken.id, new Date('2026-11-21T10:00:00.000Z'));
      await sleep(300); // six batches: the tenant is closed, the use waits
      expect(await lastUsed()).toBeNull();
      await waitFor(async () => (await lastUsed()) !== null, 3000, 20);
      expect(Date.now() - started).toBeGreaterThanOrEqual(550);
      expect(await lastUsed()).toBe('2026-11-21T10:00:00.000000Z');

      // The tenant is open now: the next use goes with the next batch.
      open = true;
      const openedAt = Date.now();
      recorder.record('demo', db, token.accessToken.id, new Date('2026-11-21T10:05:00.000Z'));
      await waitFor(async () => (await lastUsed()) === '2026-11-21T10:05:00.000000Z', 3000, 20);
      expect(Date.now() - openedAt).toBeLessThan(500);
    } finally {
      await recorder.stop();
    }
  });
});
