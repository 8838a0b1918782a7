import { hash as bcryptHash } from '@node-rs/bcrypt';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findUserByUsername } from '../../../src/modules/users/queries.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';
import { deactivateUser } from '../../../src/modules/auth/accounts.js';

const FAILED_LOGIN = { success: false, message: 'Login Fail, pls check password' };
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('POST /api/login', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await t.addTenant('acme');
  });
  afterEach(() => t.close());

  const post = (payload: unknown, headers: Record<string, string> = JSON_HEADERS, tenant = 'acme') =>
    t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { ...headers, host: hostOf(tenant) },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  it('answers the exact success body and issues a Sanctum token', async () => {
    const user = await t.addUser('acme', { username: 'alice', email: 'alice@example.com' });
    const response = await post({ username: 'alice', password: PASSWORD });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = response.json();
    expect(Object.keys(body)).toEqual(['success', 'message', 'data', 'api_key']);
    expect(Object.keys(body.data)).toEqual(['id', 'username', 'email', 'firstname', 'lastname', 'api_key']);
    expect(Object.keys(body.api_key)).toEqual(['accessToken', 'plainTextToken']);
    expect(Object.keys(body.api_key.accessToken)).toEqual([
      'name', 'abilities', 'tokenable_id', 'tokenable_type', 'created_at', 'updated_at', 'id',
    ]);
    expect(body.success).toBe(true);
    expect(body.message).toBe('success');
    expect(body.data).toMatchObject({ id: user.id, username: 'alice', email: 'alice@example.com', firstname: 'Alice', lastname: 'Example' });
    const token = body.api_key.accessToken;
    expect(token).toMatchObject({ name: 'API-Key', abilities: ['*'], tokenable_id: user.id, tokenable_type: 'App\\Models\\User' });
    expect(response.body).toContain('"tokenable_type":"App\\\\Models\\\\User"');
    expect(token.created_at).toMatch(TIMESTAMP);
    expect(token.updated_at).toMatch(TIMESTAMP);
    const plain: string = body.api_key.plainTextToken;
    expect(plain).toMatch(new RegExp(`^${token.id}\\|[A-Za-z0-9]{40}[0-9a-f]{8}$`));
    expect(body.data.api_key).toBe(plain);

    // Only the sha256 of the secret is stored.
    const row = await t.storage.tenantDb('acme').selectFrom('personal_access_tokens').selectAll().executeTakeFirstOrThrow();
    const secret = plain.slice(plain.indexOf('|') + 1);
    expect(row.token).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.abilities).toBe('["*"]');
  });

  it('matches the username regardless of ASCII case and issues a new token per login', async () => {
    await t.addUser('acme', { username: 'Alice' });
    const first = await post({ username: 'ALICE', password: PASSWORD });
    const second = await post({ username: 'alice', password: PASSWORD });
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(first.json().api_key.plainTextToken).not.toBe(second.json().api_key.plainTextToken);
  });

  it('answers 401 with the same body for an unknown user, a wrong password and a deactivated user', async () => {
    const user = await t.addUser('acme', { username: 'alice' });
    await t.addUser('acme', { username: 'bob' });
    const bob = await findUserByUsername(t.storage.tenantDb('acme'), 'bob');
    await deactivateUser(t.storage.tenantDb('acme'), bob!.id);
    for (const payload of [
      { username: 'nobody', password: PASSWORD },
      { username: 'alice', password: 'wrong password' },
      { username: 'bob', password: PASSWORD },
    ]) {
      const response = await post(payload);
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe(JSON.stringify(FAILED_LOGIN));
    }
    expect(user.id).toBeGreaterThan(0);
  });

  it('answers 422 with Laravel-worded messages for missing and mistyped fields', async () => {
    const missing = await post({});
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({
      success: false,
      message: 'The username field is required. (and 1 more error)',
      errors: { username: ['The username field is required.'], password: ['The password field is required.'] },
    });

    const mistyped = await post({ username: 12, password: 'x' });
    expect(mistyped.statusCode).toBe(422);
    expect(mistyped.json()).toEqual({
      success: false,
      message: 'The username field must be a string.',
      errors: { username: ['The username field must be a string.'] },
    });

    const tooLong = await post({ username: 'a'.repeat(256), password: 'p'.repeat(1025) });
    expect(tooLong.json()).toEqual({
      success: false,
      message: 'The username field must not be greater than 255 characters. (and 1 more error)',
      errors: {
        username: ['The username field must not be greater than 255 characters.'],
        password: ['The password field must not be greater than 1024 characters.'],
      },
    });

    for (const body of ['', '[]', '"text"', 'null']) {
      const response = await post(body);
      expect(response.statusCode).toBe(422);
      expect(Object.keys(response.json().errors)).toEqual(['username', 'password']);
    }
  });

  it('accepts imported bcrypt ($2y$) hashes and replaces them with argon2id on success', async () => {
    const user = await t.addUser('acme', { username: 'laravel' });
    const legacy = (await bcryptHash('old-secret', 10)).replace(/^\$2b\$/, '$2y$');
    const db = t.storage.tenantDb('acme');
    await db.updateTable('users').set({ password: legacy }).where('id', '=', user.id).execute();

    expect((await post({ username: 'laravel', password: 'wrong' })).statusCode).toBe(401);
    const stillLegacy = await findUserByUsername(db, 'laravel');
    expect(stillLegacy!.password).toBe(legacy);

    const recordsBefore = await db.selectFrom('change_records').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect((await post({ username: 'laravel', password: 'old-secret' })).statusCode).toBe(200);
    const upgraded = await findUserByUsername(db, 'laravel');
    expect(upgraded!.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    // A new hash of the same password is no change of the person: same version and time, no change record.
    expect({ version: upgraded!.version, updated_at: upgraded!.updated_at }).toEqual({ version: stillLegacy!.version, updated_at: stillLegacy!.updated_at });
    const recordsAfter = await db.selectFrom('change_records').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(recordsAfter.n)).toBe(Number(recordsBefore.n));
    expect((await post({ username: 'laravel', password: 'old-secret' })).statusCode).toBe(200);
  });

  it('stores new passwords as argon2id with the documented parameters', async () => {
    const user = await t.addUser('acme', { username: 'carol' });
    expect(user.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  describe('the 419 rule', () => {
    it('answers 419 for a failed login without a JSON Accept header', async () => {
      await t.addUser('acme');
      for (const accept of [undefined, '*/*', 'text/html', 'text/html, application/json']) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (accept) headers.accept = accept;
        const response = await post({ username: 'alice', password: 'wrong' }, headers);
        expect(response.statusCode, `Accept: ${accept}`).toBe(419);
        expect(response.json()).toEqual({ success: false, message: 'CSRF token mismatch.' });
      }
    });

    it('answers 419 instead of 422 for invalid input without a JSON Accept header', async () => {
      const response = await post({}, { 'content-type': 'application/json' });
      expect(response.statusCode).toBe(419);
    });

    it('leaves 404, 405 and GET requests alone', async () => {
      const headers = { host: hostOf('acme'), 'content-type': 'application/json' };
      const unknown = await t.app.inject({ method: 'POST', url: '/api/nowhere', headers, payload: '{}' });
      expect(unknown.statusCode).toBe(404);
      const wrongMethod = await t.app.inject({ method: 'PUT', url: '/api/login', headers, payload: '{}' });
      expect(wrongMethod.statusCode).toBe(405);
      const read = await t.app.inject({ method: 'GET', url: '/api/user', headers: { host: hostOf('acme') } });
      expect(read.statusCode).toBe(401);
    });

    it('lets a successful login through whatever the Accept header', async () => {
      await t.addUser('acme');
      const response = await post({ username: 'alice', password: PASSWORD }, { 'content-type': 'application/json' });
      expect(response.statusCode).toBe(200);
    });

    it.each(['application/json', 'application/vnd.api+json', 'application/json; q=1', 'Application/JSON, text/html'])(
      'does not apply when Accept asks for JSON first (%s)',
      async (accept) => {
        const response = await post({ username: 'x', password: 'y' }, { 'content-type': 'application/json', accept });
        expect(response.statusCode).toBe(401);
      },
    );

    it('does not apply when an Authorization header is sent', async () => {
      const response = await post(
        { username: 'x', password: 'y' },
        { 'content-type': 'application/json', authorization: 'Bearer 1|nope' },
      );
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(FAILED_LOGIN);
    });
  });
});
