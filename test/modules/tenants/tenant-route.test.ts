import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setTenantTimezone, TenantError } from '../../../src/modules/tenants/rules.js';
import { issueToken } from '../../../src/modules/tokens/rules.js';
import { buildTestApp, hostOf, JSON_HEADERS, type TestApp } from '../../helpers/app.js';
import { canonicalTimeZone } from '../../../src/lib/time.js';

describe('GET /api/tenant and the tenant time zone', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  const get = (token: string | null, tenant = 'demo') =>
    t.app.inject({
      method: 'GET',
      url: '/api/tenant',
      headers: { ...JSON_HEADERS, host: hostOf(tenant), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });

  it('answers slug, name and time zone to any valid token, whatever its abilities', async () => {
    const alice = await t.addUser('demo');
    const narrow = await issueToken(t.storage.tenantDb('demo'), alice.id, { tokenPrefix: '', abilities: ['tokens:read'] });
    const answer = await get(narrow.plainTextToken);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ success: true, message: 'success', data: { tenant: { slug: 'demo', name: 'demo', timezone: 'UTC', locale: 'en' } } });
    expect((await get(null)).json()).toEqual({ message: 'Unauthenticated.' });
    expect((await get(null)).statusCode).toBe(401);
  });

  it('refuses query parameters it does not take, naming each', async () => {
    const alice = await t.addUser('demo');
    const token = (await issueToken(t.storage.tenantDb('demo'), alice.id, { tokenPrefix: '' })).plainTextToken;
    const answer = await t.app.inject({
      method: 'GET',
      url: '/api/tenant?foo=1&sort_by=x',
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` },
    });
    expect(answer.statusCode).toBe(422);
    expect(answer.json()).toEqual({
      success: false,
      message: 'The foo field is prohibited. (and 1 more error)',
      errors: { foo: ['The foo field is prohibited.'], sort_by: ['The sort by field is prohibited.'] },
    });
    // A name every object has is named like any other (the answer's text, since JSON.parse and
    // an object literal would each read `__proto__` their own way).
    const proto = await t.app.inject({
      method: 'GET',
      url: '/api/tenant?__proto__=1&constructor=2',
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` },
    });
    expect(proto.statusCode).toBe(422);
    expect(proto.body).toBe(
      '{"success":false,"message":"The   proto   field is prohibited. (and 1 more error)","errors":' +
        '{"__proto__":["The   proto   field is prohibited."],"constructor":["The constructor field is prohibited."]}}',
    );
  });

  it('shows a new time zone at once, by its canonical name', async () => {
    const alice = await t.addUser('demo');
    const token = (await issueToken(t.storage.tenantDb('demo'), alice.id, { tokenPrefix: '' })).plainTextToken;
    const row = await setTenantTimezone(t.storage, 'demo', 'europe/zurich');
    expect(row.timezone).toBe('Europe/Zurich');
    expect((await get(token)).json().data.tenant.timezone).toBe('Europe/Zurich');
  });

  it('accepts IANA names only, and names the tenant or zone it refuses', async () => {
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('pacific/auckland')).toBe('Pacific/Auckland');
    for (const zone of ['Mars/Olympus', '+01:00', '', 'Europe/../etc', 'UTC\u0000']) expect(canonicalTimeZone(zone), zone).toBeNull();
    await expect(setTenantTimezone(t.storage, 'demo', 'Mars/Olympus')).rejects.toThrow(
      new TenantError('"Mars/Olympus" is not a time zone: use an IANA name such as Europe/Zurich'),
    );
    await expect(setTenantTimezone(t.storage, 'nowhere', 'UTC')).rejects.toThrow(new TenantError('tenant "nowhere" not found'));
  });
});
