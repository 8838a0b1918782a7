import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/modules/tokens/rules.js';
import { buildTestApp, hostOf, PASSWORD, type TestApp } from '../../helpers/app.js';
import { CookieBrowser as Browser, CSRF, cookieValue, setCookies } from '../../helpers/cookie-browser.js';

const UNAUTHENTICATED = { message: 'Unauthenticated.' };
const valueOf = (line: string | undefined) => (line === undefined ? undefined : cookieValue(line));

/** Sessions as a single-page app signs in with them: an HttpOnly cookie, and a CSRF header on every write. */
describe('browser sessions', () => {
  let t: TestApp;
  let alice: { id: number };
  beforeAll(async () => {
    t = await buildTestApp({ RATE_LIMIT_AUTHENTICATED: '5000', RATE_LIMIT_UNAUTHENTICATED: '7000', TRUST_PROXY: 'true' });
    alice = await t.addUser('demo', { username: 'alice', email: 'alice@example.com', firstname: 'Alice', lastname: 'Ash' });
    await t.addTenant('acme');
  });
  afterAll(() => t?.close());

  it('GET /csrf-cookie sets a readable XSRF-TOKEN, keeps a well-formed one, and is not rate-limited', async () => {
    const browser = new Browser(t);
    const first = await browser.send('GET', '/csrf-cookie');
    expect(first.statusCode).toBe(204);
    const line = setCookies(first.headers).get('XSRF-TOKEN')!;
    expect(valueOf(line)).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(line).toMatch(/; Path=\//);
    expect(line).toMatch(/SameSite=Lax/);
    expect(line).not.toMatch(/HttpOnly|Domain|Secure/i);
    expect(first.headers['x-ratelimit-limit']).toBeUndefined();
    const again = await browser.send('GET', '/csrf-cookie?anything=1');
    expect(again.statusCode).toBe(204);
    expect(setCookies(again.headers).has('XSRF-TOKEN')).toBe(false);
    browser.jar.set('XSRF-TOKEN', 'short');
    expect(valueOf(setCookies((await browser.send('GET', '/csrf-cookie')).headers).get('XSRF-TOKEN'))).toMatch(/^[A-Za-z0-9]{40}$/);
  });

  it('signs in only with a matching X-XSRF-TOKEN, answers as login does on a wrong password, and puts no token in the body', async () => {
    const browser = new Browser(t);
    await browser.send('GET', '/csrf-cookie');
    const body = { username: 'alice', password: PASSWORD };
    for (const xsrf of [undefined, '', 'x'.repeat(40)]) {
      const refused = await browser.send('POST', '/session', { body, ...(xsrf === undefined ? {} : { xsrf }) });
      expect(refused.statusCode).toBe(419);
      expect(refused.json()).toEqual(CSRF);
    }
    const wrong = await browser.send('POST', '/session', { body: { ...body, password: 'wrong password' }, xsrf: true });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ success: false, message: 'Login Fail, pls check password' });
    const notBoolean = await browser.send('POST', '/session', { body: { ...body, remember: 'yes' }, xsrf: true });
    expect(notBoolean.statusCode).toBe(422);
    expect(notBoolean.json().errors).toEqual({ remember: ['The remember field must be true or false.'] });

    const before = browser.jar.get('XSRF-TOKEN');
    const signedIn = await browser.send('POST', '/session', { body, xsrf: true });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json()).toEqual({ success: true, message: 'success', data: { user: { id: alice.id, username: 'alice', email: 'alice@example.com', firstname: 'Alice', lastname: 'Ash' } } });
    const session = setCookies(signedIn.headers).get('groupadmin_session')!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/; Path=\//);
    expect(session).not.toMatch(/Expires|Max-Age|Domain|Secure/i);
    expect(signedIn.body).not.toContain(valueOf(session)!.split('|')[1]!);
    expect(browser.jar.get('XSRF-TOKEN')).not.toBe(before);
  });

  it('authenticates with the cookie as that user, lists the session among the tokens, and counts it as the user', async () => {
    const browser = new Browser(t);
    await browser.signIn();
    const user = await browser.send('GET', '/user');
    expect(user.statusCode).toBe(200);
    expect(user.json().username).toBe('alice');
    expect(user.headers['x-ratelimit-limit']).toBe('5000');
    const tokens = (await browser.send('GET', '/tokens')).json().data.tokens as { name: string; abilities: string[]; current: boolean; expires_at: string | null }[];
    expect(tokens.find((token) => token.current)).toMatchObject({ name: 'web session', abilities: ['*'], expires_at: null });
  });

  it('refuses a write through the cookie without the CSRF header (419), before authentication and the body', async () => {
    const browser = new Browser(t);
    await browser.signIn();
    const missing = await browser.send('PATCH', '/user', { body: { city: 'Bern' } });
    expect(missing.statusCode).toBe(419);
    expect(missing.json()).toEqual(CSRF);
    expect((await browser.send('PATCH', '/user', { body: { city: 'Bern' }, xsrf: 'y'.repeat(40) })).statusCode).toBe(419);
    const broken = await browser.send('POST', '/tokens', { body: '{not json' as unknown as object });
    expect(broken.statusCode).toBe(419);
    const changed = await browser.send('PATCH', '/user', { body: { city: 'Bern' }, xsrf: true });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().city).toBe('Bern');
    // An unknown route stays 404, a wrong method 405.
    expect((await browser.send('POST', '/nowhere', { body: {} })).statusCode).toBe(404);
    expect((await browser.send('DELETE', '/user')).statusCode).toBe(405);
  });

  it('refuses a write whose Origin is another site, and accepts its own origin', async () => {
    const browser = new Browser(t);
    await browser.signIn();
    const foreign = await browser.send('PATCH', '/user', { body: { city: 'Basel' }, xsrf: true, headers: { origin: 'https://evil.example' } });
    expect(foreign.statusCode).toBe(419);
    const sibling = await browser.send('PATCH', '/user', { body: { city: 'Basel' }, xsrf: true, headers: { origin: 'http://acme.localhost' } });
    expect(sibling.statusCode).toBe(419);
    const own = await browser.send('PATCH', '/user', { body: { city: 'Basel' }, xsrf: true, headers: { origin: 'http://demo.localhost' } });
    expect(own.statusCode, own.body).toBe(200);
  });

  it('lets an Authorization header win over the cookie, with no CSRF check', async () => {
    const browser = new Browser(t);
    await browser.signIn();
    const bearer = await t.login('demo', 'alice', PASSWORD);
    const answer = await browser.send('PATCH', '/user', { body: { city: 'Thun' }, headers: { authorization: `Bearer ${bearer}` } });
    expect(answer.statusCode, answer.body).toBe(200);
  });

  it("does not authenticate a cookie on another tenant's host, nor an API token put in the cookie", async () => {
    const browser = new Browser(t);
    await browser.signIn();
    const elsewhere = new Browser(t, 'acme');
    elsewhere.jar.set('groupadmin_session', browser.jar.get('groupadmin_session')!);
    const answer = await elsewhere.send('GET', '/user');
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toEqual(UNAUTHENTICATED);
    const api = new Browser(t);
    api.jar.set('groupadmin_session', await t.login('demo', 'alice', PASSWORD));
    expect((await api.send('GET', '/user')).statusCode).toBe(401);
  });

  it('remembers a session for days when asked: Max-Age, and an idle limit of days instead of hours', async () => {
    const browser = new Browser(t);
    const answer = await browser.signIn({ remember: true });
    expect(setCookies(answer.headers).get('groupadmin_session')).toMatch(/Max-Age=2592000/);
  });

  it("sends a remembered session's cookie again once a day of use, so that it counts from recent use; a short one never", async () => {
    const db = t.storage.tenantDb('demo');
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
    const remembered = await issueToken(db, alice.id, { tokenPrefix: '', session: 'remembered', now: daysAgo(3) });
    const browser = new Browser(t);
    browser.jar.set('groupadmin_session', remembered.plainTextToken);
    const first = await browser.send('GET', '/user');
    expect(first.statusCode).toBe(200);
    expect(setCookies(first.headers).get('groupadmin_session')).toMatch(/HttpOnly/);
    expect(setCookies(first.headers).get('groupadmin_session')).toMatch(/Max-Age=2592000/);
    expect(browser.jar.get('groupadmin_session')).toBe(remembered.plainTextToken);
    const again = await browser.send('GET', '/user');
    expect(again.statusCode).toBe(200);
    expect(setCookies(again.headers).has('groupadmin_session')).toBe(false);
    const short = new Browser(t);
    await short.signIn();
    expect(setCookies((await short.send('GET', '/user')).headers).has('groupadmin_session')).toBe(false);
  });

  it('ends a session idle for longer than its limit: 401, the cookie cleared, the token deleted', async () => {
    const db = t.storage.tenantDb('demo');
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    const idle = await issueToken(db, alice.id, { tokenPrefix: '', session: 'short', now: hoursAgo(3) });
    const remembered = await issueToken(db, alice.id, { tokenPrefix: '', session: 'remembered', now: hoursAgo(3) });
    const browser = new Browser(t);
    browser.jar.set('groupadmin_session', idle.plainTextToken);
    const ended = await browser.send('GET', '/user');
    expect(ended.statusCode).toBe(401);
    expect(setCookies(ended.headers).get('groupadmin_session')).toMatch(/Max-Age=0/);
    await expect.poll(async () => (await db.selectFrom('personal_access_tokens').select('id').where('id', '=', idle.accessToken.id).execute()).length).toBe(0);
    const kept = new Browser(t);
    kept.jar.set('groupadmin_session', remembered.plainTextToken);
    expect((await kept.send('GET', '/user')).statusCode).toBe(200);
  });

  it('signs out: the token deleted, the cookie cleared; 204 also without a session', async () => {
    const browser = new Browser(t);
    await browser.signIn();
    const cookie = browser.jar.get('groupadmin_session')!;
    expect((await browser.send('DELETE', '/session')).statusCode).toBe(419);
    const out = await browser.send('DELETE', '/session', { xsrf: true });
    expect(out.statusCode).toBe(204);
    expect(setCookies(out.headers).get('groupadmin_session')).toMatch(/Max-Age=0/);
    const stale = new Browser(t);
    stale.jar.set('groupadmin_session', cookie);
    expect((await stale.send('GET', '/user')).statusCode).toBe(401);
    expect((await new Browser(t).send('DELETE', '/session')).statusCode).toBe(204);
  });

  it('replaces a session cookie sent along with a new sign-in, and deletes its token (no fixation)', async () => {
    const browser = new Browser(t);
    await browser.signIn();
    const old = browser.jar.get('groupadmin_session')!;
    await browser.signIn();
    expect(browser.jar.get('groupadmin_session')).not.toBe(old);
    const stale = new Browser(t);
    stale.jar.set('groupadmin_session', old);
    expect((await stale.send('GET', '/user')).statusCode).toBe(401);
  });

  it('keeps the device that changed the password signed in with a new session; every other token ends', async () => {
    const bob = await t.addUser('demo', { username: 'bob' });
    const browser = new Browser(t);
    await browser.send('GET', '/csrf-cookie');
    expect((await browser.send('POST', '/session', { body: { username: 'bob', password: PASSWORD, remember: true }, xsrf: true })).statusCode).toBe(200);
    const other = await t.login('demo', 'bob', PASSWORD);
    const old = browser.jar.get('groupadmin_session')!;
    const changed = await browser.send('PUT', '/user/password', { body: { current_password: PASSWORD, password: 'a new long password', password_confirmation: 'a new long password' }, xsrf: true });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ success: true, data: { user: { id: bob.id, username: 'bob' } } });
    expect(changed.body).not.toContain('plainTextToken');
    expect(setCookies(changed.headers).get('groupadmin_session')).toMatch(/Max-Age=2592000/);
    expect(browser.jar.get('groupadmin_session')).not.toBe(old);
    expect((await browser.send('GET', '/user')).statusCode).toBe(200);
    const bearer = await t.app.inject({ method: 'GET', url: '/api/user', headers: { host: hostOf('demo'), accept: 'application/json', authorization: `Bearer ${other}` } });
    expect(bearer.statusCode).toBe(401);
  });

  it('lets POST /login ignore a session cookie sent along: no CSRF check, counted as unauthenticated', async () => {
    const browser = new Browser(t);
    await browser.signIn();
    const login = await browser.send('POST', '/login', { body: { username: 'alice', password: PASSWORD } });
    expect(login.statusCode, login.body).toBe(200);
    expect(login.headers['x-ratelimit-limit']).toBe('7000');
  });

  it('reserves the name web session: POST /tokens refuses it', async () => {
    const token = await t.login('demo', 'alice', PASSWORD);
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: { host: hostOf('demo'), accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${token}` },
      payload: { name: 'web session' },
    });
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({ name: ['The name web session is reserved.'] });
  });

  it('over HTTPS uses the __Host- cookie, Secure, and reads only that one', async () => {
    const browser = new Browser(t, 'demo', { 'x-forwarded-proto': 'https' });
    const answer = await browser.signIn();
    const line = setCookies(answer.headers).get('__Host-groupadmin_session')!;
    expect(line).toMatch(/Secure/);
    expect(setCookies(answer.headers).get('XSRF-TOKEN')).toMatch(/Secure/);
    expect((await browser.send('GET', '/user')).statusCode).toBe(200);
    const plain = new Browser(t, 'demo', { 'x-forwarded-proto': 'https' });
    plain.jar.set('groupadmin_session', browser.jar.get('__Host-groupadmin_session')!);
    expect((await plain.send('GET', '/user')).statusCode).toBe(401);
  });
});
