import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, PASSWORD, type TestApp } from '../helpers/app.js';

describe('tenant isolation', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await t.addTenant('acme');
    await t.addTenant('globex');
  });
  afterEach(() => t.close());

  const getUser = (token: string, tenant: string) =>
    t.app.inject({
      method: 'GET',
      url: '/api/user',
      headers: { accept: 'application/json', host: hostOf(tenant), authorization: `Bearer ${token}` },
    });

  it('keeps same-named users apart and accepts each token only on its own host', async () => {
    const acmeAlice = await t.addUser('acme', { username: 'alice', firstname: 'Acme' });
    const globexAlice = await t.addUser('globex', { username: 'alice', firstname: 'Globex', password: 'another password' });
    // Same numeric ids on both sides: the first user and the first token of each tenant.
    expect(acmeAlice.id).toBe(globexAlice.id);

    const acmeToken = await t.login('acme', 'alice', PASSWORD);
    const globexToken = await t.login('globex', 'alice', 'another password');
    expect(acmeToken.split('|')[0]).toBe(globexToken.split('|')[0]);

    expect((await getUser(acmeToken, 'acme')).json().firstname).toBe('Acme');
    expect((await getUser(globexToken, 'globex')).json().firstname).toBe('Globex');
    expect((await getUser(acmeToken, 'globex')).statusCode).toBe(401);
    expect((await getUser(globexToken, 'acme')).statusCode).toBe(401);
    expect((await getUser(acmeToken, 'demo')).statusCode).toBe(401);
  });

  it("does not log a user in with another tenant's password", async () => {
    await t.addUser('acme', { username: 'alice' });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { 'content-type': 'application/json', accept: 'application/json', host: hostOf('globex') },
      payload: { username: 'alice', password: PASSWORD },
    });
    expect(response.statusCode).toBe(401);
  });

  it('selects the default tenant for localhost and IP hosts', async () => {
    await t.addUser('demo', { username: 'root' });
    const token = await t.login('demo', 'root', PASSWORD);
    for (const host of ['localhost', 'localhost:3000', '127.0.0.1:3000', '[::1]:3000']) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/user',
        headers: { host, authorization: `Bearer ${token}`, accept: 'application/json' },
      });
      expect(response.statusCode, host).toBe(200);
    }
  });

  it('reads X-Forwarded-Host only behind a trusted proxy', async () => {
    await t.addUser('acme');
    const token = await t.login('acme', 'alice', PASSWORD);
    const forwarded = { host: 'localhost', 'x-forwarded-host': hostOf('acme'), authorization: `Bearer ${token}` };
    // Untrusted: the Host header (default tenant) counts, so acme's token is foreign there.
    expect((await t.app.inject({ method: 'GET', url: '/api/user', headers: forwarded })).statusCode).toBe(401);

    const proxied = await buildTestApp({ TRUST_PROXY: 'true' });
    try {
      await proxied.addTenant('acme');
      await proxied.addUser('acme');
      const proxiedToken = await proxied.login('acme', 'alice', PASSWORD);
      const response = await proxied.app.inject({
        method: 'GET',
        url: '/api/user',
        headers: { ...forwarded, authorization: `Bearer ${proxiedToken}` },
      });
      expect(response.statusCode).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});
