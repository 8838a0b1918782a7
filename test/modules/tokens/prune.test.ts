import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/modules/tokens/rules.js';
import { pruneExpiredTokens } from '../../../src/modules/tokens/prune.js';
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
    expect(await pruneExpiredTokens(t.storage, 24, now)).toEqual({ tenants: 2, deleted: 2 });
    expect(await pruneExpiredTokens(t.storage, 24, now)).toEqual({ tenants: 2, deleted: 0 });
    expect(await pruneExpiredTokens(t.storage, 0, now)).toEqual({ tenants: 2, deleted: 2 });
    for (const tenant of ['demo', 'acme']) {
      const names = await t.storage.tenantDb(tenant).selectFrom('personal_access_tokens').select('name').orderBy('id').execute();
      expect(names.map((row) => row.name)).toEqual(['valid', 'forever']);
    }
  });
});
