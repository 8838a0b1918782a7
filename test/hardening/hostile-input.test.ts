import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateNewUser } from '../../src/modules/users/schemas.js';
import { buildTestApp, hostOf, PASSWORD, type TestApp } from '../helpers/app.js';

/**
 * Generated hostile input at every endpoint. Whatever arrives, the answer is one of the documented
 * statuses with the documented body shape, never a 5xx, and the process stays up.
 */
const ENDPOINTS: [string, string][] = [
  ['POST', '/api/login'],
  ['GET', '/api/user'],
  ['PATCH', '/api/user'],
  ['PUT', '/api/user/password'],
  ['POST', '/api/logout'],
  ['GET', '/api/tokens'],
  ['POST', '/api/tokens'],
  ['DELETE', '/api/tokens'],
  ['DELETE', '/api/tokens/1'],
  // The group core: alice is an administrator of acme's root; bob (person 2) is who gets changed.
  ['GET', '/api/groups'],
  ['POST', '/api/groups'],
  ['GET', '/api/groups/1'],
  ['PATCH', '/api/groups/2'],
  ['DELETE', '/api/groups/3'],
  ['GET', '/api/groups/1/memberships'],
  ['GET', '/api/role-types'],
  // Webhooks (no webhook 1 exists unless a body happens to be a valid one).
  ['POST', '/api/webhooks'],
  ['GET', '/api/webhooks'],
  ['GET', '/api/webhooks/1'],
  ['PATCH', '/api/webhooks/1'],
  ['GET', '/api/webhooks/1/deliveries'],
  ['POST', '/api/webhooks/1/test'],
  ['POST', '/api/role-types'],
  ['PATCH', '/api/role-types/member'],
  ['DELETE', '/api/role-types/member'],
  ['GET', '/api/people'],
  ['POST', '/api/people'],
  ['GET', '/api/people/2'],
  ['PATCH', '/api/people/2'],
  ['DELETE', '/api/people/2'],
  ['GET', '/api/people/2/memberships'],
  ['GET', '/api/people/2/guardians'],
  ['POST', '/api/people/2/guardians'],
  ['DELETE', '/api/people/2/guardians/1'],
  ['GET', '/api/user/wards'],
  ['POST', '/api/memberships'],
  ['PATCH', '/api/memberships/1'],
  ['PATCH', '/api/memberships/2'],
  ['DELETE', '/api/memberships/2'],
];
const DOCUMENTED = new Set([200, 201, 204, 400, 401, 403, 404, 405, 412, 413, 415, 419, 422, 429]);
const RUNS = 120;

interface Answer {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}

function expectDocumented(answer: Answer, context: string) {
  const { statusCode, body } = answer;
  expect(DOCUMENTED.has(statusCode), `${context}: status ${statusCode} ${body}`).toBe(true);
  if (statusCode === 204) {
    expect(body).toBe('');
    return;
  }
  expect(String(answer.headers['content-type'])).toBe('application/json; charset=utf-8');
  const parsed = JSON.parse(body) as Record<string, unknown>;
  if (statusCode < 300) {
    expect(typeof parsed).toBe('object');
    return;
  }
  if (statusCode === 401 && !('success' in parsed)) {
    expect(body).toBe('{"message":"Unauthenticated."}');
  } else if (statusCode === 429) {
    expect(parsed).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
  } else {
    expect(parsed.success, context).toBe(false);
    expect(typeof parsed.message).toBe('string');
    for (const key of Object.keys(parsed)) expect(['success', 'message', 'errors']).toContain(key);
    if (parsed.errors !== undefined) {
      for (const messages of Object.values(parsed.errors as Record<string, unknown>)) {
        expect(Array.isArray(messages) && messages.every((m) => typeof m === 'string')).toBe(true);
      }
    }
  }
  expect(body).not.toMatch(/\bat .+:\d+:\d+/);
}

/** Header text Node accepts: printable ASCII and Latin-1, no control characters. */
const headerText = (maxLength: number) =>
  fc
    .array(fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })), { maxLength })
    .map((codes) => String.fromCharCode(...codes).trim());

const hostileKeys = fc.constantFrom(
  '__proto__', 'constructor', 'prototype', 'username', 'password', 'name', 'abilities', 'email', 'is_vegetarian', 'expires_at', '',
  'parent_id', 'kind', 'description', 'key', 'label', 'permission', 'scope', 'firstname', 'lastname', 'birthday', 'membership',
  'group_id', 'role_type', 'person_id', 'guardian_id', 'start_on', 'end_on',
);
const hostileJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 50 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constant('\u0000'),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(2 ** 53 + 1),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(hostileKeys, tie('value'), { maxKeys: 5 }),
}));

describe('hostile input', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await buildTestApp({ BODY_LIMIT: '65536' });
    await t.addTenant('acme');
    const alice = await t.addUser('acme', { username: 'alice' });
    const bob = await t.addUser('acme', { username: 'bob' });
    await t.addUser('demo', { username: 'alice' });
    const root = await t.rootGroupId('acme');
    await t.grant('acme', alice.id, root, 'admin');
    await t.grant('acme', bob.id, root, 'member');
    token = await t.login('acme', 'alice', PASSWORD);
    for (const name of ['troop', 'patrol']) {
      await send('POST', '/api/groups', { host: hostOf('acme'), 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` }, JSON.stringify({ parent_id: root, name }));
    }
  });
  afterAll(() => t.close());

  const send = (method: string, url: string, headers: Record<string, string>, payload?: string | Buffer) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });

  it('JSON bodies of any shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), hostileJson.value, fc.boolean(), async ([method, url], body, withToken) => {
        const headers: Record<string, string> = { host: hostOf('acme'), 'content-type': 'application/json', accept: 'application/json' };
        if (withToken) headers.authorization = `Bearer ${token}`;
        // Keep the shared token alive: logging out or revoking it would end the run's other cases.
        if (withToken && (url === '/api/logout' || method === 'DELETE' || url === '/api/user/password')) headers.authorization = 'Bearer 999|x';
        // PATCH /people/1 could set alice's own password (and end her token): bob is the target.
        const answer = await send(method, url, headers, JSON.stringify(body));
        expectDocumented(answer, `${method} ${url} ${JSON.stringify(body)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('raw bytes: invalid UTF-8, NUL, truncated JSON, duplicate keys, deep nesting, huge strings', async () => {
    const fixed = [
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      '{"username":"a","username":{"x":1},"password":"b","password":"c"}',
      '{"username":"\u0000","password":"\u0000"}',
      `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
      `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
      JSON.stringify({ username: 'x'.repeat(60_000), password: 'y' }),
      JSON.stringify({ username: 'x'.repeat(70_000) }),
      '{"__proto__":{"isAdmin":true},"username":"alice","password":"x"}',
    ];
    for (const [method, url] of ENDPOINTS) {
      for (const payload of fixed) {
        const answer = await send(method, url, { host: hostOf('acme'), 'content-type': 'application/json', accept: 'application/json' }, payload);
        expectDocumented(answer, `${method} ${url}`);
      }
    }
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), fc.uint8Array({ maxLength: 200 }), fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.x+json'), async ([method, url], bytes, contentType) => {
        const answer = await send(method, url, { host: hostOf('acme'), 'content-type': contentType, accept: 'application/json' }, Buffer.from(bytes));
        expectDocumented(answer, `${method} ${url}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('U+0000 in text: refused where it would be stored, no user where it is looked up (PostgreSQL cannot hold it)', async () => {
    const headers = { host: hostOf('acme'), 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` };
    const refused = async (method: string, url: string, field: string, value: string) => {
      const answer = await send(method, url, headers, JSON.stringify({ [field]: value }));
      expect(answer.statusCode, `${method} ${url} ${field}`).toBe(422);
      expect(JSON.parse(answer.body).errors).toEqual({ [field]: [`The ${field.replace(/_/g, ' ')} field format is invalid.`] });
    };
    await refused('POST', '/api/tokens', 'name', 'phone\u0000app');
    for (const field of ['firstname', 'lastname', 'phonenumber', 'street', 'city']) await refused('PATCH', '/api/user', field, '\u0000');
    const login = await send('POST', '/api/login', { host: hostOf('acme'), 'content-type': 'application/json', accept: 'application/json' }, JSON.stringify({ username: 'alice\u0000', password: PASSWORD }));
    expect(login.statusCode).toBe(401);
    expect(validateNewUser({ username: 'bob\u0000', email: 'bob@example.com', firstname: 'Bob', lastname: 'B', password: PASSWORD })).toEqual({
      ok: false,
      fieldErrors: { username: ['The username field format is invalid.'] },
    });
  });

  it('Authorization headers of every malformed shape', async () => {
    const id = token.split('|')[0]!;
    const secret = token.split('|')[1]!;
    const shapes = fc.oneof(
      headerText(300),
      headerText(200).map((s) => `Bearer ${s}`),
      // Never the real token itself: sent to /api/logout or DELETE /api/tokens/1 it would end the run.
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).filter((n) => n !== BigInt(id)).map((n) => `Bearer ${n}|${secret}`),
      fc.integer({ min: 2, max: 30 }).map((n) => `Bearer ${id}${'|'.repeat(n)}${secret}`),
      fc.constantFrom(`Bearer ${'9'.repeat(10_000)}|x`, `Bearer 1|${'a'.repeat(10_000)}`, 'Bearer 0|x', 'Bearer -1|x', `Bearer ${id}|${secret}\u00e9`, `Token ${token}`, token),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), shapes, async ([method, url], authorization) => {
        const answer = await send(method, url, { host: hostOf('acme'), accept: 'application/json', authorization });
        expectDocumented(answer, `${method} ${url} [${authorization.slice(0, 60)}]`);
        if (url === '/api/user' && method === 'GET') expect([200, 401]).toContain(answer.statusCode);
      }),
      { numRuns: RUNS },
    );
    // The real token still works after all that.
    expect((await send('GET', '/api/user', { host: hostOf('acme'), authorization: `Bearer ${token}` })).statusCode).toBe(200);
  });

  it('Host headers: empty, odd case, trailing dots, ports, IPv6, unknown and foreign tenants', async () => {
    const hosts = fc.oneof(
      fc.constantFrom('', ' ', 'ACME.LOCALHOST', 'acme.localhost.', 'acme.localhost:99999', '[::1]', '[::1]:80', '[', 'demo.localhost',
        'nobody.localhost', 'www.localhost', 'acme.acme.localhost', '127.0.0.1', '0.0.0.0:1', 'localhost:abc', '..', '.localhost'),
      headerText(80),
      headerText(20).map((s) => `${s}.localhost`),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), hosts, fc.boolean(), async ([method, url], host, withToken) => {
        const headers: Record<string, string> = { host, accept: 'application/json' };
        if (withToken) headers.authorization = `Bearer ${token}`;
        const answer = await send(method === 'GET' ? method : 'GET', url, headers);
        expectDocumented(answer, `${url} host=${host}`);
        // acme's token is never valid on any other tenant's host.
        if (answer.statusCode === 200) expect(host.toLowerCase().replace(/\.$/, '')).toMatch(/^acme\.localhost(:\d+)?$/);
      }),
      { numRuns: RUNS },
    );
  });

  it('methods, paths and query strings', async () => {
    const paths = fc.oneof(
      fc.constantFrom(...ENDPOINTS.map(([, url]) => url), '/api', '/api/', '/api/tokens/x', '/api/tokens/99999999999999999999', '/api/%00', '/api/..%2f..%2fetc/passwd', '//api//user', '/API/USER'),
      fc.webPath().map((p) => `/api${p}`),
    );
    const queries = fc.oneof(fc.constant(''), fc.webQueryParameters().map((q) => `?${q}`), fc.constant('?__proto__[x]=1&constructor[prototype][y]=2'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), paths, queries, async (method, path, query) => {
        const answer = await send(method, `${path}${query}`, { host: hostOf('acme'), accept: 'application/json' });
        if (method === 'HEAD') {
          expect(answer.statusCode).toBeLessThan(500);
          return;
        }
        expectDocumented(answer, `${method} ${path}${query}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('paths with a % that starts no valid escape: answered in the service\'s shape, with its headers, never Fastify\'s 400', async () => {
    const headers = { host: hostOf('acme'), accept: 'application/json', authorization: `Bearer ${token}` };
    for (const [path, status, body] of [
      ['/api/user/%zz', 404, { success: false, message: 'The route api/user/%zz could not be found.' }],
      ['/api/nope/%zz?x=1', 404, { success: false, message: 'The route api/nope/%zz could not be found.' }],
      ['/api/user/%C3%28', 404, { success: false, message: 'The route api/user/%C3%28 could not be found.' }],
      ['/api/people/%', 404, { success: false, message: 'Person not found.' }],
      ['/nothing/%zz', 404, { success: false, message: 'The route nothing/%zz could not be found.' }],
    ] as const) {
      const answer = await send('GET', path, headers);
      expect(answer.statusCode, path).toBe(status);
      expect(answer.json(), path).toEqual(body);
      expect(answer.headers['content-type'], path).toBe('application/json; charset=utf-8');
      if (path.startsWith('/api/')) expect(answer.headers['x-ratelimit-limit'], path).toBeDefined();
    }
    // A valid escape still reaches its route.
    expect((await send('GET', '/api/%75ser', headers)).statusCode).toBe(200);
  });

  it('query strings of the lists: wrong types, forged cursors, unknown and repeated parameters', async () => {
    const lists = [
      '/api/groups', '/api/people', '/api/groups/1/memberships', '/api/people/2/memberships', '/api/role-types', '/api/user/wards',
      '/api/changes', '/api/people/1/history', '/api/groups/1/history', '/api/events/1/history', '/api/webhooks', '/api/webhooks/1/deliveries',
    ];
    const names = fc.constantFrom('limit', 'cursor', 'after', 'parent_id', 'below', 'q', 'group_id', 'role_type', 'active_on', 'ids', 'updated_since', 'is_vegetarian', 'can_swimm', 'sort', 'all', 'foo', '__proto__');
    const values = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('0', '-1', '201', '1e3', '9'.repeat(40), 'true', 'null', '2026-02-30', '1,2,x', 'eyJ4IjoxfQ.AAAA', '%00', '\u0000'));
    const query = fc.array(fc.tuple(names, values), { maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...lists), query, async (url, q) => {
        const answer = await send('GET', `${url}?${q}`, { host: hostOf('acme'), accept: 'application/json', authorization: `Bearer ${token}` });
        expectDocumented(answer, `GET ${url}?${q}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('cannot pollute prototypes', async () => {
    const payloads = [
      '{"__proto__":{"polluted":"yes"}}',
      '{"constructor":{"prototype":{"polluted":"yes"}}}',
      '{"username":"a","password":"b","__proto__":{"polluted":"yes","isAdmin":true}}',
      '{"name":"x","abilities":["*"],"__proto__":{"abilities":["*"],"polluted":"yes"}}',
      '{"city":"x","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}',
    ];
    for (const [method, url] of ENDPOINTS.filter(([, u]) => u !== '/api/logout')) {
      for (const payload of payloads) {
        await send(method, `${url}?__proto__[polluted]=yes`, {
          host: hostOf('acme'),
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: url === '/api/user/password' || method === 'DELETE' ? 'Bearer 999|x' : `Bearer ${token}`,
        }, payload);
      }
    }
    const probe: Record<string, unknown> = {};
    expect(probe.polluted).toBeUndefined();
    expect(probe.isAdmin).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Array.prototype).not.toHaveProperty('polluted');
    // And nothing reached storage: the profile is unchanged.
    const user = (await send('GET', '/api/user', { host: hostOf('acme'), authorization: `Bearer ${token}` })).json();
    expect(user).not.toHaveProperty('polluted');
  });
});
