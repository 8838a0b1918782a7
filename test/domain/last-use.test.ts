import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/domain/access-tokens.js';
import { createLastUseRecorder } from '../../src/domain/last-use.js';
import { toApiTimestampOrNull } from '../../src/domain/time.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

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
});
