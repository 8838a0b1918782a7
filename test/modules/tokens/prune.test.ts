import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/modules/tokens/rules.js';
import { pruneExpiredTokens } from '../../../src/modules/tokens/prune.js';
import { DEFAULT_SESSION_LIMITS } from '../../../src/modules/tokens/verifier.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

describe('pruneExpiredTokens', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await t.addTenant('acme');
  });
  afterEach(() => t.close());

  it('deletes, in every tenant, tokens that expired more than the given hours ago', async () => {
    const now = new Date('2026-11-21T12:00:00Z');
    const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
    for (const tenant of ['demo', 'acme']) {
      const user = await t.addUser(tenant);
      const db = t.storage.tenantDb(tenant);
      await issueToken(db, user.id, { tokenPrefix: '', name: 'long expired', expiresAt: hoursAgo(48), now: hoursAgo(72) });
      await issueToken(db, user.id, { tokenPrefix: '', name: 'just expired', expiresAt: hoursAgo(1), now: hoursAgo(72) });
      await issueToken(db, user.id, { tokenPrefix: '', name: 'valid', expiresAt: hoursAgo(-1), now: hoursAgo(72) });
      await issueToken(db, user.id, { tokenPrefix: '', name: 'forever', now: hoursAgo(72) });
    }
    expect(await pruneExpiredTokens(t.storage, 24, DEFAULT_SESSION_LIMITS, now)).toEqual({ tenants: 2, deleted: 2 });
    expect(await pruneExpiredTokens(t.storage, 24, DEFAULT_SESSION_LIMITS, now)).toEqual({ tenants: 2, deleted: 0 });
    expect(await pruneExpiredTokens(t.storage, 0, DEFAULT_SESSION_LIMITS, now)).toEqual({ tenants: 2, deleted: 2 });
    for (const tenant of ['demo', 'acme']) {
      const names = await t.storage.tenantDb(tenant).selectFrom('personal_access_tokens').select('name').orderBy('id').execute();
      expect(names.map((row) => row.name)).toEqual(['valid', 'forever']);
    }
  });

  it('deletes the browser sessions that ended by idleness, short ones after the idle time, remembered ones after days', async () => {
    const now = new Date('2026-11-21T12:00:00Z');
    const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
    const user = await t.addUser('demo');
    const db = t.storage.tenantDb('demo');
    await issueToken(db, user.id, { tokenPrefix: '', session: 'short', now: minutesAgo(121) });
    await issueToken(db, user.id, { tokenPrefix: '', session: 'short', now: minutesAgo(119) });
    await issueToken(db, user.id, { tokenPrefix: '', session: 'remembered', now: minutesAgo(121) });
    await issueToken(db, user.id, { tokenPrefix: '', session: 'remembered', now: minutesAgo(31 * 24 * 60) });
    await issueToken(db, user.id, { tokenPrefix: '', name: 'api client', now: minutesAgo(31 * 24 * 60) });
    expect(await pruneExpiredTokens(t.storage, 24, DEFAULT_SESSION_LIMITS, now)).toEqual({ tenants: 2, deleted: 2 });
    const left = await db.selectFrom('personal_access_tokens').select(['name', 'session_remember']).orderBy('id').execute();
    expect(left.map((row) => [row.name, row.session_remember === null ? null : Number(row.session_remember)])).toEqual([
      ['web session', 0],
      ['web session', 1],
      ['api client', null],
    ]);
  });
});
