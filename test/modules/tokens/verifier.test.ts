import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/modules/tokens/rules.js';
import { createTokenVerifier } from '../../../src/modules/tokens/verifier.js';
import { parseBearerHeader } from '../../../src/modules/tokens/secrets.js';
import { deleteTokensOfUser } from '../../../src/modules/tokens/queries.js';
import { toApiUser } from '../../../src/modules/users/schemas.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { sleep } from '../../helpers/wait.js';

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

  const current = {
    isCurrent: () => true,
    get storage() {
      return t.storage;
    },
  };

  it('remembers the user as GET /user shows it, never the password hash', async () => {
    const { user, db, bearer } = await setup();
    const verifier = createTokenVerifier(current);
    const found = await verifier.verify('demo', db, bearer, Date.now());
    expect(found?.user).toEqual(toApiUser(user));
    expect(Object.keys(found?.user ?? {})).not.toContain('password');
    expect(JSON.stringify(found)).not.toContain(user.password);
  });

  it('remembers a token row until a change says otherwise, however long', async () => {
    const { user, db, bearer } = await setup();
    const verifier = createTokenVerifier(current);
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    // Revoked behind the verifier's back: remembered until the change feed reports it.
    await deleteTokensOfUser(db, user.id);
    await sleep(50);
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    expect(verifier.verifyNow('demo', db, bearer, Date.now())).toBeTruthy();
    verifier.forget({ tenant: 'demo', userId: user.id, tokenId: null });
    expect(await verifier.verify('demo', db, bearer, Date.now())).toBeNull();
    // verifyNow cannot answer without waiting on PostgreSQL (undefined); it must not say yes.
    expect(verifier.verifyNow('demo', db, bearer, Date.now()) ?? null).toBeNull();

    const again = await issueToken(db, user.id, { tokenPrefix: '' });
    const second = parseBearerHeader(`Bearer ${again.plainTextToken}`)!;
    expect(await verifier.verify('demo', db, second, Date.now())).not.toBeNull();
    await deleteTokensOfUser(db, user.id);
    expect(verifier.verifyNow('demo', db, second, Date.now())).toBeTruthy();
    verifier.forget({ tenant: 'demo', userId: null, tokenId: second.id });
    expect(verifier.verifyNow('demo', db, second, Date.now()) ?? null).toBeNull();
  });

  it('reads the database on every request while the change feed is not current', async () => {
    const { user, db, bearer } = await setup();
    let feedCurrent = true;
    const verifier = createTokenVerifier({ storage: t.storage, isCurrent: () => feedCurrent });
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    feedCurrent = false;
    await deleteTokensOfUser(db, user.id);
    expect(verifier.verifyNow('demo', db, bearer, Date.now()) ?? null).toBeNull();
    expect(await verifier.verify('demo', db, bearer, Date.now())).toBeNull();
  });

  it('forgets everything when told to', async () => {
    const { user, db, bearer } = await setup();
    const verifier = createTokenVerifier(current);
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    await deleteTokensOfUser(db, user.id);
    verifier.forgetAll();
    expect(await verifier.verify('demo', db, bearer, Date.now())).toBeNull();
  });

  it('reads a row again after maxAgeMs, for edits made with SQL behind the service', async () => {
    const { user, db, bearer } = await setup();
    const verifier = createTokenVerifier({ ...current, maxAgeMs: 200 });
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    await deleteTokensOfUser(db, user.id);
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    await sleep(250);
    expect(await verifier.verify('demo', db, bearer, Date.now())).toBeNull();
  });

  it('does not remember a row read while a change in its tenant arrived', async () => {
    const { user, db, bearer } = await setup();
    const verifier = createTokenVerifier(current);
    // The read starts before the change is applied, so it may have seen the state before it.
    const reading = verifier.verify('demo', db, bearer, Date.now());
    verifier.forget({ tenant: 'demo', userId: user.id, tokenId: null });
    expect(await reading).not.toBeNull();
    await deleteTokensOfUser(db, user.id);
    expect(await verifier.verify('demo', db, bearer, Date.now())).toBeNull();
  });

  it('answers a read that the token\'s own revocation overtook, instead of failing it', async () => {
    const { user, db, bearer } = await setup();
    const verifier = createTokenVerifier(current);
    // A change naming the token arrives while its row is being read: the read is abandoned and
    // the request answered from a read after the change.
    const stillThere = verifier.verify('demo', db, bearer, Date.now());
    verifier.forget({ tenant: 'demo', userId: null, tokenId: bearer.id });
    expect((await stillThere)?.user.id).toBe(user.id);

    // The same for a wrong secret and for a token id that does not exist: 401, not a failure.
    const wrongSecret = verifier.verify('demo', db, { id: bearer.id, secret: 'nonsense' }, Date.now());
    verifier.forget({ tenant: 'demo', userId: user.id, tokenId: bearer.id });
    expect(await wrongSecret).toBeNull();
    const unknown = verifier.verify('demo', db, { id: 999, secret: 'nonsense' }, Date.now());
    verifier.forget({ tenant: 'demo', userId: null, tokenId: 999 });
    expect(await unknown).toBeNull();

    const other = await issueToken(db, user.id, { tokenPrefix: '' });
    const otherBearer = parseBearerHeader(`Bearer ${other.plainTextToken}`)!;
    const duringForgetAll = verifier.verify('demo', db, otherBearer, Date.now());
    verifier.forgetAll();
    expect((await duringForgetAll)?.tokenId).toBe(otherBearer.id);
    // What such a read found is not remembered: a revocation behind the verifier's back shows.
    await deleteTokensOfUser(db, user.id);
    expect(await verifier.verify('demo', db, otherBearer, Date.now())).toBeNull();
  });

  it('answers every request that shared an overtaken read, not only the one that started it', async () => {
    const { user, db, bearer } = await setup();
    const verifier = createTokenVerifier(current);
    // Concurrent requests with one token share one read; forget() and forgetAll() abandon it.
    for (const change of [() => verifier.forget({ tenant: 'demo', userId: null, tokenId: bearer.id }), () => verifier.forgetAll()]) {
      const sharing = Array.from({ length: 5 }, () => verifier.verify('demo', db, bearer, Date.now()));
      change();
      const answers = await Promise.all(sharing);
      expect(answers.map((answer) => answer?.user.id)).toEqual(Array(5).fill(user.id));
    }

    // A read that fails on its own (storage away) fails every request that shared it, as it is.
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const unreachable = new Proxy({}, { get: () => { throw refused; } }) as unknown as typeof db;
    const failing = Array.from({ length: 3 }, () => verifier.verify('demo', unreachable, bearer, Date.now()));
    const outcomes = await Promise.allSettled(failing);
    expect(outcomes.map((outcome) => outcome.status === 'rejected' && outcome.reason)).toEqual(Array(3).fill(refused));
  });

  it('checks the secret on every request, cached or not, and keeps tenants apart', async () => {
    const { db, bearer } = await setup();
    const verifier = createTokenVerifier(current);
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
    const verifier = createTokenVerifier(current);
    expect(await verifier.verify('demo', db, bearer, Date.now())).not.toBeNull();
    expect(await verifier.verify('demo', db, bearer, expiresAt.getTime())).toBeNull();
  });
});
