import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/domain/access-tokens.js';
import { createTokenVerifier } from '../../src/domain/token-verifier.js';
import { parseBearerHeader } from '../../src/domain/tokens.js';
import { deleteTokensOfUser } from '../../src/db/tokens.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('token verifier', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  const setup = async () => {
    const user = await t.addUser('demo');
    const db = t.storage.tenantDb('demo');
    const issued = await issueToken(db, user.id, { tokenPrefix: '' });
    return { user, db, bearer: parseBearerHeader(`Bearer ${issued.plainTextToken}`)! };
  };

  it('remembers a token row for at most ttlMs, so a revocation elsewhere takes effect within it', async () => {
    const { user, db, bearer } = await setup();
    const verifier = createTokenVerifier({ ttlMs: 200 });
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    // Revoked behind the verifier's back (as by the CLI or another instance).
    await deleteTokensOfUser(db, user.id);
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    await sleep(250);
    expect(await verifier.verify('demo', db, bearer, Date.now())).toBeNull();
  });

  it('forgets at once what this process revokes or changes', async () => {
    const { user, db, bearer } = await setup();
    const verifier = createTokenVerifier({ ttlMs: 60_000 });
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    await deleteTokensOfUser(db, user.id);
    verifier.forgetUser('demo', user.id);
    expect(await verifier.verify('demo', db, bearer, Date.now())).toBeNull();

    const again = await issueToken(db, user.id, { tokenPrefix: '' });
    const second = parseBearerHeader(`Bearer ${again.plainTextToken}`)!;
    expect(await verifier.verify('demo', db, second, Date.now())).not.toBeNull();
    await deleteTokensOfUser(db, user.id);
    verifier.forgetToken('demo', second.id);
    expect(await verifier.verify('demo', db, second, Date.now())).toBeNull();
  });

  it('checks the secret on every request, cached or not, and keeps tenants apart', async () => {
    const { db, bearer } = await setup();
    const verifier = createTokenVerifier({ ttlMs: 60_000 });
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    expect(await verifier.verify('demo', db, { id: bearer.id, secret: `${bearer.secret}x` }, Date.now())).toBeNull();
    expect(await verifier.verify('demo', db, { id: bearer.id, secret: 'a'.repeat(48) }, Date.now())).toBeNull();
    await t.addTenant('acme');
    expect(await verifier.verify('acme', t.storage.tenantDb('acme'), bearer, Date.now())).toBeNull();
  });

  it('refuses an expired token even while it is remembered', async () => {
    const user = await t.addUser('demo');
    const db = t.storage.tenantDb('demo');
    const expiresAt = new Date(Date.now() + 60_000);
    const issued = await issueToken(db, user.id, { tokenPrefix: '', expiresAt });
    const bearer = parseBearerHeader(`Bearer ${issued.plainTextToken}`)!;
    const verifier = createTokenVerifier({ ttlMs: 600_000 });
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    expect(await verifier.verify('demo', db, bearer, expiresAt.getTime())).toBeNull();
  });
});
