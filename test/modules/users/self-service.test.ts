import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

describe('PATCH /api/user and PUT /api/user/password', () => {
  let t: TestApp;
  let token: string;
  beforeEach(async () => {
    t = await buildTestApp();
    await t.addUser('demo', { username: 'alice' });
    await t.addUser('demo', { username: 'bob' });
    token = await t.login('demo', 'alice', PASSWORD);
  });
  afterEach(() => t.close());

  const call = (method: string, url: string, payload?: unknown, bearer = token) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${bearer}` },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  it('updates the caller\'s own profile and answers like GET /api/user', async () => {
    const before = (await call('GET', '/api/user')).json();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await call('PATCH', '/api/user', {
      firstname: 'Alicia', city: 'Bonn', zip: '53111', is_vegetarian: true, can_swimm: true, gender_id: 2, street: null,
    });
    expect(response.statusCode).toBe(200);
    const after = response.json();
    expect(Object.keys(after)).toEqual(Object.keys(before));
    expect(after).toMatchObject({ id: before.id, username: 'alice', firstname: 'Alicia', city: 'Bonn', zip: '53111', is_vegetarian: true, can_swimm: true, gender_id: 2, street: null });
    expect(after.created_at).toBe(before.created_at);
    expect(after.updated_at > before.updated_at).toBe(true);
    expect((await call('GET', '/api/user')).json()).toEqual(after);
  });

  it('leaves updated_at as it is when nothing changes (as Laravel writes no model with nothing dirty)', async () => {
    const before = (await call('GET', '/api/user')).json();
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (const body of [{}, { firstname: before.firstname, city: before.city, is_vegetarian: before.is_vegetarian, can_swimm: before.can_swimm }]) {
      const response = await call('PATCH', '/api/user', body);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(before);
    }
  });

  it('rejects bad values with per-field messages', async () => {
    const response = await call('PATCH', '/api/user', {
      email: 'not-an-email', firstname: '', gender_id: 'two', is_vegetarian: 'yes', city: 'x'.repeat(256),
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      success: false,
      message: 'The email field must be a valid email address. (and 4 more errors)',
      errors: {
        email: ['The email field must be a valid email address.'],
        firstname: ['The firstname field is required.'],
        gender_id: ['The gender id field must be an integer.'],
        city: ['The city field must not be greater than 255 characters.'],
        is_vegetarian: ['The is vegetarian field must be true or false.'],
      },
    });
  });

  it('refuses to change id, username, password or timestamps here', async () => {
    const response = await call('PATCH', '/api/user', { username: 'mallory', password: 'x', city: 'Bonn' });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors).toEqual({
      username: ['The username field is prohibited.'],
      password: ['The password field is prohibited.'],
    });
    expect((await call('GET', '/api/user')).json()).toMatchObject({ username: 'alice', city: null });
  });

  it('refuses an e-mail address another user has, in any case', async () => {
    const response = await call('PATCH', '/api/user', { email: 'BOB@example.com' });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors).toEqual({ email: ['The email has already been taken.'] });
    expect((await call('PATCH', '/api/user', { email: 'ALICE@example.com' })).statusCode).toBe(200);
  });

  it('changes the password, ends every session and hands out a fresh token', async () => {
    const other = await t.login('demo', 'alice', PASSWORD);
    const response = await call('PUT', '/api/user/password', {
      current_password: PASSWORD, password: 'a brand new secret', password_confirmation: 'a brand new secret',
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body)).toEqual(['success', 'message', 'data', 'api_key']);
    expect(body.data.username).toBe('alice');
    expect(body.data.api_key).toBe(body.api_key.plainTextToken);
    for (const old of [token, other]) expect((await call('GET', '/api/user', undefined, old)).statusCode).toBe(401);
    expect((await call('GET', '/api/user', undefined, body.api_key.plainTextToken)).statusCode).toBe(200);
    expect((await t.login('demo', 'alice', 'a brand new secret')).length).toBeGreaterThan(0);
  });

  it('answers 422 on the right field for a wrong current password, a mismatch or a short password', async () => {
    const cases: [object, Record<string, string[]>][] = [
      [{ current_password: 'wrong', password: 'long enough 1', password_confirmation: 'long enough 1' }, { current_password: ['The password is incorrect.'] }],
      [{ current_password: PASSWORD, password: 'long enough 1', password_confirmation: 'long enough 2' }, { password: ['The password field confirmation does not match.'] }],
      [{ current_password: PASSWORD, password: 'short', password_confirmation: 'short' }, { password: ['The password field must be at least 8 characters.'] }],
      [{}, {
        current_password: ['The current password field is required.'],
        password: ['The password field is required.'],
        password_confirmation: ['The password confirmation field is required.'],
      }],
    ];
    for (const [payload, errors] of cases) {
      const response = await call('PUT', '/api/user/password', payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(response.json().errors).toEqual(errors);
    }
    // Nothing changed: the old token and the old password still work.
    expect((await call('GET', '/api/user')).statusCode).toBe(200);
    expect((await t.login('demo', 'alice', PASSWORD)).length).toBeGreaterThan(0);
  });
});
