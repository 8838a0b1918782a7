import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('token self-service', () => {
  let t: TestApp;
  let clock: Date | null;
  beforeEach(async () => {
    clock = null;
    t = await buildTestApp({}, { now: () => clock ?? new Date() });
    await t.addUser('demo', { username: 'alice' });
    await t.addUser('demo', { username: 'bob' });
  });
  afterEach(() => t.close());

  const call = (method: string, url: string, token?: string, payload?: unknown) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { ...JSON_HEADERS, host: hostOf('demo'), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const createToken = async (token: string, body: object) => {
    const response = await call('POST', '/api/tokens', token, body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json().data as { accessToken: Record<string, unknown>; plainTextToken: string };
  };

  it('POST /api/tokens creates a token shaped like login\'s api_key', async () => {
    const login = await t.login('demo', 'alice', PASSWORD);
    const response = await call('POST', '/api/tokens', login, { name: 'Calendar app', abilities: ['user:read'] });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(Object.keys(body)).toEqual(['success', 'message', 'data']);
    expect(body.success).toBe(true);
    expect(Object.keys(body.data)).toEqual(['accessToken', 'plainTextToken']);
    expect(Object.keys(body.data.accessToken)).toEqual([
      'name', 'abilities', 'tokenable_id', 'tokenable_type', 'created_at', 'updated_at', 'id',
    ]);
    expect(body.data.accessToken).toMatchObject({ name: 'Calendar app', abilities: ['user:read'], tokenable_type: 'App\\Models\\User' });
    expect(body.data.plainTextToken).toMatch(/^\d+\|[A-Za-z0-9]{40}[0-9a-f]{8}$/);
    expect((await call('GET', '/api/user', body.data.plainTextToken)).statusCode).toBe(200);

    const expiring = await createToken(login, { name: 'Until tomorrow', expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect(expiring.accessToken.abilities).toEqual(['*']);
    expect(Object.keys(expiring.accessToken).at(-1)).toBe('expires_at');
    expect(expiring.accessToken.expires_at).toMatch(TIMESTAMP);
  });

  it('POST /api/tokens validates its input with per-field messages', async () => {
    const login = await t.login('demo', 'alice', PASSWORD);
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { name: ['The name field is required.'] }],
      [{ name: '' }, { name: ['The name field is required.'] }],
      [{ name: 'x'.repeat(256) }, { name: ['The name field must not be greater than 255 characters.'] }],
      [{ name: 'x', abilities: ['user:read', 'root'] }, { 'abilities.1': ['The selected abilities.1 is invalid.'] }],
      [{ name: 'x', abilities: 'user:read' }, { abilities: ['The abilities field must be an array.'] }],
      [{ name: 'x', expires_at: 'tomorrow' }, { expires_at: ['The expires at field must be a valid date.'] }],
      [{ name: 'x', expires_at: '2001-01-01T00:00:00Z' }, { expires_at: ['The expires at field must be a date after now.'] }],
    ];
    for (const [payload, errors] of cases) {
      const response = await call('POST', '/api/tokens', login, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(response.json().errors).toEqual(errors);
    }
  });

  it('a token cannot grant what it lacks itself', async () => {
    const login = await t.login('demo', 'alice', PASSWORD);
    const manager = await createToken(login, { name: 'manager', abilities: ['tokens:write', 'user:read'] });
    const narrower = await createToken(manager.plainTextToken, { name: 'reader', abilities: ['user:read'] });
    expect(narrower.accessToken.abilities).toEqual(['user:read']);
    const wider = await call('POST', '/api/tokens', manager.plainTextToken, { name: 'x', abilities: ['user:write'] });
    expect(wider.statusCode).toBe(422);
    expect(wider.json().errors).toEqual({ abilities: ['The abilities field may not grant what this token lacks: user:write.'] });
    const everything = await call('POST', '/api/tokens', manager.plainTextToken, { name: 'x' });
    expect(everything.statusCode).toBe(422);
  });

  it('a token with an expiry cannot make one that outlives it', async () => {
    const login = await t.login('demo', 'alice', PASSWORD);
    const ends = new Date(Date.now() + 86_400_000);
    const shortLived = await createToken(login, { name: 'short', expires_at: ends.toISOString() });
    const message = `The expires at field may not be later than this token's own expiry, ${ends.toISOString().slice(0, 23)}000Z.`;
    for (const body of [{ name: 'forever' }, { name: 'later', expires_at: new Date(ends.getTime() + 1_000).toISOString() }]) {
      const refused = await call('POST', '/api/tokens', shortLived.plainTextToken, body);
      expect(refused.statusCode).toBe(422);
      expect(refused.json().errors).toEqual({ expires_at: [message] });
    }
    const within = await createToken(shortLived.plainTextToken, { name: 'within', expires_at: ends.toISOString() });
    expect(within.accessToken.expires_at).toBe(`${ends.toISOString().slice(0, 23)}000Z`);
    // A token without an expiry still makes one without.
    expect((await call('POST', '/api/tokens', login, { name: 'forever' })).statusCode).toBe(201);
  });

  it('answers 403 for a missing ability and 401 without a token, before reading the body', async () => {
    const login = await t.login('demo', 'alice', PASSWORD);
    const reader = (await createToken(login, { name: 'reader', abilities: ['user:read'] })).plainTextToken;
    const forbidden = { success: false, message: 'Invalid ability provided.' };
    for (const [method, url, payload] of [
      ['GET', '/api/tokens', undefined],
      ['POST', '/api/tokens', { name: 'x' }],
      ['POST', '/api/tokens', {}],
      ['DELETE', '/api/tokens/1', undefined],
      ['DELETE', '/api/tokens', undefined],
      ['PATCH', '/api/user', { city: 'Bonn' }],
      ['PUT', '/api/user/password', {}],
    ] as const) {
      const response = await call(method, url, reader, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json()).toEqual(forbidden);
      const anonymous = await call(method, url, undefined, payload);
      expect(anonymous.statusCode, `${method} ${url}`).toBe(401);
      expect(anonymous.body).toBe('{"message":"Unauthenticated."}');
    }
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: { ...JSON_HEADERS, host: hostOf('demo') },
      payload: '{not json',
    });
    expect(malformed.statusCode).toBe(401);
  });

  it('GET /api/tokens lists the caller\'s tokens, marks the current one, and shows no secret', async () => {
    const first = await t.login('demo', 'alice', PASSWORD);
    const second = await createToken(first, { name: 'phone', abilities: ['user:read'] });
    await t.login('demo', 'bob', PASSWORD);
    const response = await call('GET', '/api/tokens', first);
    expect(response.statusCode).toBe(200);
    const { tokens } = response.json().data;
    expect(tokens).toHaveLength(2);
    expect(Object.keys(tokens[0])).toEqual([
      'id', 'name', 'abilities', 'last_used_at', 'expires_at', 'created_at', 'updated_at', 'current',
    ]);
    expect(tokens.map((token: { name: string; current: boolean }) => [token.name, token.current])).toEqual([
      ['API-Key', true],
      ['phone', false],
    ]);
    const secret = second.plainTextToken.split('|')[1]!;
    expect(response.body).not.toContain(secret);
    const stored = await t.storage.tenantDb('demo').selectFrom('personal_access_tokens').select('token').execute();
    for (const { token } of stored) expect(response.body).not.toContain(token);
  });

  it('GET /api/tokens shows last_used_at soon after a use, without a write per request', async () => {
    const login = await t.login('demo', 'alice', PASSWORD);
    const app = await createToken(login, { name: 'app' });
    expect((await call('GET', '/api/user', app.plainTextToken)).statusCode).toBe(200);
    const lastUsed = async () => {
      const { tokens } = (await call('GET', '/api/tokens', login)).json().data;
      return tokens.find((token: { name: string }) => token.name === 'app').last_used_at as string | null;
    };
    let seen: string | null = null;
    // Uses are written in batches, about once a second.
    for (let i = 0; i < 50 && seen === null; i++) {
      seen = await lastUsed();
      if (seen === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).toMatch(TIMESTAMP);
    // Further uses within the minute do not write again.
    await call('GET', '/api/user', app.plainTextToken);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await lastUsed()).toBe(seen);
  });

  it('DELETE /api/tokens/{id} revokes one token; another user\'s and unknown ids get the same 404', async () => {
    const alice = await t.login('demo', 'alice', PASSWORD);
    const phone = await createToken(alice, { name: 'phone' });
    const bob = await t.login('demo', 'bob', PASSWORD);
    const bobId = bob.split('|')[0]!;

    const deleted = await call('DELETE', `/api/tokens/${phone.accessToken.id}`, alice);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call('GET', '/api/user', phone.plainTextToken)).statusCode).toBe(401);

    const notFound = { success: false, message: 'Token not found.' };
    for (const id of [bobId, '999999', 'abc', '0', String(phone.accessToken.id)]) {
      const response = await call('DELETE', `/api/tokens/${id}`, alice);
      expect(response.statusCode, id).toBe(404);
      expect(response.json()).toEqual(notFound);
    }
    expect((await call('GET', '/api/user', bob)).statusCode).toBe(200);
  });

  it('DELETE /api/tokens revokes all but the current token and tells how many', async () => {
    const current = await t.login('demo', 'alice', PASSWORD);
    const others = [await t.login('demo', 'alice', PASSWORD), (await createToken(current, { name: 'x' })).plainTextToken];
    const bob = await t.login('demo', 'bob', PASSWORD);
    const response = await call('DELETE', '/api/tokens', current);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, message: 'success', data: { deleted: 2 } });
    for (const token of others) expect((await call('GET', '/api/user', token)).statusCode).toBe(401);
    expect((await call('GET', '/api/user', current)).statusCode).toBe(200);
    expect((await call('GET', '/api/user', bob)).statusCode).toBe(200);
  });

  it('POST /api/logout deletes only the token used', async () => {
    const first = await t.login('demo', 'alice', PASSWORD);
    const second = await t.login('demo', 'alice', PASSWORD);
    const reader = (await createToken(first, { name: 'reader', abilities: ['user:read'] })).plainTextToken;
    const response = await call('POST', '/api/logout', first);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, message: 'Logged out.', data: {} });
    expect((await call('GET', '/api/user', first)).statusCode).toBe(401);
    expect((await call('GET', '/api/user', second)).statusCode).toBe(200);
    // Any valid token may log itself out, whatever its abilities.
    expect((await call('POST', '/api/logout', reader)).statusCode).toBe(200);
    expect((await call('POST', '/api/logout', first)).statusCode).toBe(401);
  });

  it('refuses a token once its expires_at has passed', async () => {
    const login = await t.login('demo', 'alice', PASSWORD);
    const expiresAt = new Date(Date.now() + 3_600_000);
    const expiring = await createToken(login, { name: 'short', expires_at: expiresAt.toISOString() });
    expect((await call('GET', '/api/user', expiring.plainTextToken)).statusCode).toBe(200);
    clock = new Date(expiresAt.getTime() + 1);
    expect((await call('GET', '/api/user', expiring.plainTextToken)).statusCode).toBe(401);
    expect((await call('GET', '/api/user', login)).statusCode).toBe(200);
  });

  it('issues prefixed tokens with TOKEN_PREFIX, and older tokens keep working', async () => {
    const before = await t.login('demo', 'alice', PASSWORD);
    const config = loadConfig({ ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: 'silent', TOKEN_PREFIX: 'ga_', DATABASE_URL: t.config.databaseUrl ?? '' });
    const prefixed = await buildApp(config, { storage: t.storage });
    try {
      const response = await prefixed.inject({
        method: 'POST',
        url: '/api/login',
        headers: { ...JSON_HEADERS, host: hostOf('demo') },
        payload: { username: 'alice', password: PASSWORD },
      });
      const token = response.json().api_key.plainTextToken as string;
      // The documented pattern for secret scanners.
      expect(token).toMatch(/^\d+\|ga_[A-Za-z0-9]{40}[0-9a-f]{8}$/);
      const withToken = (value: string) =>
        prefixed.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${value}` } });
      expect((await withToken(token)).statusCode).toBe(200);
      expect((await withToken(before)).statusCode).toBe(200);
    } finally {
      await prefixed.close();
    }
  });
});
