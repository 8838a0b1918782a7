import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deleteTokensOfUser } from '../../../src/modules/tokens/queries.js';
import { issueToken } from '../../../src/modules/tokens/rules.js';
import { toApiTimestampOrNull } from '../../../src/lib/time.js';
import { buildTestApp, hostOf, PASSWORD, type TestApp } from '../../helpers/app.js';
import { changePassword, deactivateUser } from '../../../src/modules/auth/accounts.js';

const UNAUTHENTICATED = '{"message":"Unauthenticated."}';
const FIELD_ORDER = [
  'id', 'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber',
  'phonenumber_mobile', 'street', 'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm',
  'created_at', 'updated_at',
];

describe('GET /api/user', () => {
  let t: TestApp;
  let clock: Date;
  beforeEach(async () => {
    clock = new Date('2026-11-21T09:30:05.123Z');
    t = await buildTestApp({}, { now: () => clock });
  });
  afterEach(() => t.close());

  const getUser = (authorization?: string, tenant = 'demo') =>
    t.app.inject({
      method: 'GET',
      url: '/api/user',
      headers: { accept: 'application/json', host: hostOf(tenant), ...(authorization ? { authorization } : {}) },
    });

  it('answers the flat 17-field user in the original service\'s order', async () => {
    const user = await t.addUser('demo', {
      username: 'alice',
      gender_id: 2,
      street: 'Main Street',
      housenumber: '12a',
      zip: '01234',
      is_vegetarian: true,
    });
    const token = await t.login('demo', 'alice', PASSWORD);
    const response = await getUser(`Bearer ${token}`);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body)).toEqual(FIELD_ORDER);
    expect(body).toEqual({
      id: user.id,
      username: 'alice',
      email: 'alice@example.com',
      firstname: 'Alice',
      lastname: 'Example',
      gender_id: 2,
      type_id: null,
      phonenumber: null,
      phonenumber_mobile: null,
      street: 'Main Street',
      housenumber: '12a',
      zip: '01234',
      city: null,
      is_vegetarian: true,
      can_swimm: false,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
    });
    expect(response.body).not.toContain('password');
    expect(response.body).not.toContain('is_active');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    // The second answer comes from the remembered serialization: the same bytes.
    const again = await getUser(`Bearer ${token}`);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(again.body).toBe(response.body);
    const head = await t.app.inject({ method: 'HEAD', url: '/api/user', headers: { host: hostOf('demo'), authorization: `Bearer ${token}` } });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('accepts every token of a user, each on its own', async () => {
    await t.addUser('demo');
    const first = await t.login('demo', 'alice', PASSWORD);
    const second = await t.login('demo', 'alice', PASSWORD);
    expect((await getUser(`Bearer ${first}`)).statusCode).toBe(200);
    expect((await getUser(`bearer ${second}`)).statusCode).toBe(200);
  });

  it('accepts a token issued before a prefix was configured, and tokens without the checksum', async () => {
    const user = await t.addUser('demo');
    const db = t.storage.tenantDb('demo');
    const prefixed = await issueToken(db, user.id, { tokenPrefix: 'ga_' });
    expect((await getUser(`Bearer ${prefixed.plainTextToken}`)).statusCode).toBe(200);
    // Older Sanctum versions issued 40 characters and no checksum; only the hash counts.
    const { hashTokenSecret } = await import('../../../src/modules/tokens/secrets.js');
    const legacySecret = 'a'.repeat(40);
    const row = await db
      .insertInto('personal_access_tokens')
      .values({
        tokenable_type: 'App\\Models\\User', tokenable_id: user.id, name: 'old', token: hashTokenSecret(legacySecret),
        abilities: '["*"]', last_used_at: null, expires_at: null,
        created_at: '2020-01-01 00:00:00', updated_at: '2020-01-01 00:00:00',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect((await getUser(`Bearer ${row.id}|${legacySecret}`)).statusCode).toBe(200);
  });

  it('answers exactly {"message":"Unauthenticated."} for every missing, malformed or foreign credential', async () => {
    await t.addUser('demo');
    const token = await t.login('demo', 'alice', PASSWORD);
    const [id, secret] = token.split('|') as [string, string];
    const attempts = [
      undefined,
      token,
      `Token ${token}`,
      `Basic ${token}`,
      `Bearer`,
      `Bearer ${secret}`,
      `Bearer  ${token}`,
      `Bearer ${id}|`,
      `Bearer x${id}|${secret}`,
      `Bearer ${id}|${secret}x`,
      `Bearer ${Number(id) + 1}|${secret}`,
      `Bearer ${id}|${secret.toUpperCase()}`,
      `Bearer 99999999999999999999|${secret}`,
    ];
    for (const authorization of attempts) {
      const response = await getUser(authorization);
      expect(response.statusCode, String(authorization)).toBe(401);
      expect(response.body).toBe(UNAUTHENTICATED);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('stops accepting a token when it is deleted, the password changes or the user is deactivated', async () => {
    const user = await t.addUser('demo');
    const db = t.storage.tenantDb('demo');

    let token = await t.login('demo', 'alice', PASSWORD);
    await deleteTokensOfUser(db, user.id);
    expect((await getUser(`Bearer ${token}`)).statusCode).toBe(401);

    token = await t.login('demo', 'alice', PASSWORD);
    await changePassword(db, user.id, 'a new password');
    expect((await getUser(`Bearer ${token}`)).statusCode).toBe(401);

    token = await t.login('demo', 'alice', 'a new password');
    await deactivateUser(db, user.id);
    expect((await getUser(`Bearer ${token}`)).statusCode).toBe(401);
  });

  it('refuses an expired token', async () => {
    const user = await t.addUser('demo');
    const db = t.storage.tenantDb('demo');
    const expiring = await issueToken(db, user.id, { tokenPrefix: '', expiresAt: new Date(clock.getTime() + 60_000) });
    expect((await getUser(`Bearer ${expiring.plainTextToken}`)).statusCode).toBe(200);
    clock = new Date(clock.getTime() + 60_000);
    expect((await getUser(`Bearer ${expiring.plainTextToken}`)).statusCode).toBe(401);
  });

  it('writes last_used_at at most once a minute per token', async () => {
    await t.addUser('demo');
    const token = await t.login('demo', 'alice', PASSWORD);
    const id = Number(token.split('|')[0]);
    const db = t.storage.tenantDb('demo');
    const read = async () => {
      const row = await db.selectFrom('personal_access_tokens').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow();
      return toApiTimestampOrNull(row.last_used_at);
    };
    // Uses are written in batches (about once a second): wait for the one expected, or a little
    // past the batch when nothing is expected to change.
    const lastUsed = async (expected?: string) => {
      for (let waited = 0; waited < 2500; waited += 50) {
        const value = await read();
        if (expected === undefined ? waited >= 1500 : value === expected) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return read();
    };
    expect(await lastUsed()).toBeNull();

    await getUser(`Bearer ${token}`);
    expect(await lastUsed('2026-11-21T09:30:05.123000Z')).toBe('2026-11-21T09:30:05.123000Z');

    clock = new Date('2026-11-21T09:30:50.000Z');
    await getUser(`Bearer ${token}`);
    await getUser(`Bearer ${token}`);
    expect(await lastUsed()).toBe('2026-11-21T09:30:05.123000Z');

    clock = new Date('2026-11-21T09:31:05.200Z');
    await getUser(`Bearer ${token}`);
    expect(await lastUsed('2026-11-21T09:31:05.200000Z')).toBe('2026-11-21T09:31:05.200000Z');
  });
});
