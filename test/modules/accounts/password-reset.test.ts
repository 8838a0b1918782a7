import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from '../../helpers/app.js';
import { endAccountLinksOf } from '../../../src/modules/accounts/rules.js';
import { activateUser, deactivateUser } from '../../../src/modules/auth/accounts.js';
import { waitFor } from '../../helpers/wait.js';
import { ageAccountTokens, Browser, buildMailingApp, client, CSRF, linkToken, mailRowsOf, nthMailTo, tokenRowsOf, type MailingApp } from './helpers.js';

const FORGOT_ANSWER = { success: true, message: 'If the address is known, a link is on its way.' };
const RESET_INVALID = { success: false, message: 'The reset link is invalid or has expired.', errors: { token: ['The reset link is invalid or has expired.'] } };
const NEW_PASSWORD = 'a brand new password';

describe('password reset', () => {
  let m: MailingApp;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    m = await buildMailingApp();
    api = client(m.t);
    await m.t.storage.registry.updateTable('tenants').set({ name: 'Pfadi Olten' }).where('slug', '=', 'demo').execute();
  });
  afterAll(() => m?.close());

  let serial = 0;
  /** A new person with a login, and their address. */
  async function newUser(fields: Record<string, unknown> = {}) {
    serial += 1;
    const username = `reset${serial}`;
    const user = await m.t.addUser('demo', { username, email: `${username}@example.com`, firstname: 'Rita', lastname: 'Reset', ...fields });
    return { id: Number(user.id), username, email: user.email! };
  }

  /** Asks for a link and reads its token from the mail the SMTP server received. */
  async function resetLinkFor(email: string, mailsBefore = 0) {
    const answer = await api('POST', '/password/forgot', { email });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual(FORGOT_ANSWER);
    return linkToken(await nthMailTo(m.sink, email, mailsBefore + 1), 'reset');
  }

  /** The requests answered so far have done their work: a later one's mail has arrived. */
  async function settled() {
    const witness = await newUser();
    await resetLinkFor(witness.email);
  }

  it('refuses a missing or non-string email and answers every string alike', async () => {
    const missing = await api('POST', '/password/forgot', {});
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({ success: false, message: 'The email field is required.', errors: { email: ['The email field is required.'] } });
    const number = await api('POST', '/password/forgot', { email: 5 });
    expect(number.statusCode).toBe(422);
    expect(number.json().errors).toEqual({ email: ['The email field must be a string.'] });
    const query = await api('POST', '/password/forgot?foo=1', { email: 'x@example.com' });
    expect(query.statusCode).toBe(422);
    expect(query.json().errors).toEqual({ foo: ['The foo field is prohibited.'] });
    for (const email of ['nobody@example.com', 'not an address', '']) {
      const answer = await api('POST', '/password/forgot', { email });
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toEqual(FORGOT_ANSWER);
    }
  });

  it('mails an active person with a login a link that names their username, from the tenant, to the public URL', async () => {
    const user = await newUser();
    const answer = await api('POST', '/password/forgot', { email: user.email.toUpperCase() });
    expect(answer.json()).toEqual(FORGOT_ANSWER);
    const mail = await nthMailTo(m.sink, user.email, 1);
    expect(mail.parsed.from?.value).toEqual([{ address: m.t.config.mail.from.address, name: 'Pfadi Olten' }]);
    expect(mail.parsed.subject).toBe('A new password for Pfadi Olten');
    expect(mail.parsed.text).toContain(`Your username is: ${user.username}`);
    expect(mail.parsed.text).toMatch(/https:\/\/demo\.app\.example\.org\/#reset=[A-Za-z0-9_-]{43}\n/);
    expect(String(mail.parsed.html)).toContain('https://demo.app.example.org/#reset=');
    // Stored as its sha256 only, valid 60 minutes.
    const [row] = await tokenRowsOf(m.t, user.id);
    const token = linkToken(mail, 'reset');
    expect(row!.token).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row!.kind).toBe('reset');
  });

  it('sends nothing to unknown addresses, people without a login and deactivated users', async () => {
    const deactivated = await newUser();
    await m.t.storage.tenantDb('demo').updateTable('users').set({ is_active: 0 }).where('id', '=', deactivated.id).execute();
    const noLogin = await newUser();
    await m.t.storage.tenantDb('demo').updateTable('users').set({ username: null, password: null }).where('id', '=', noLogin.id).execute();
    for (const email of [deactivated.email, noLogin.email, 'unknown@example.com']) {
      expect((await api('POST', '/password/forgot', { email })).json()).toEqual(FORGOT_ANSWER);
    }
    await settled();
    expect(m.sink.to(deactivated.email)).toEqual([]);
    expect(m.sink.to(noLogin.email)).toEqual([]);
    expect(await tokenRowsOf(m.t, deactivated.id)).toEqual([]);
    expect(await tokenRowsOf(m.t, noLogin.id)).toEqual([]);
  });

  it('token form: sets the password, ends every token, answers exactly as POST /login with no cookie', async () => {
    const user = await newUser();
    const oldToken = await m.t.login('demo', user.username, PASSWORD);
    const token = await resetLinkFor(user.email);
    const answer = await api('POST', '/password/reset', { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['set-cookie']).toBeUndefined();
    const body = answer.json();
    expect(Object.keys(body)).toEqual(['success', 'message', 'data', 'api_key']);
    expect(body.data).toEqual({ id: user.id, username: user.username, email: user.email, firstname: 'Rita', lastname: 'Reset', api_key: body.api_key.plainTextToken });
    expect(Object.keys(body.api_key.accessToken)).toEqual(['name', 'abilities', 'tokenable_id', 'tokenable_type', 'created_at', 'updated_at', 'id']);
    expect((await client(m.t, oldToken)('GET', '/user')).statusCode).toBe(401);
    expect((await client(m.t, body.api_key.plainTextToken)('GET', '/user')).statusCode).toBe(200);
    await expect(m.t.login('demo', user.username, PASSWORD)).rejects.toThrow();
    await m.t.login('demo', user.username, NEW_PASSWORD);
    // Single use.
    const again = await api('POST', '/password/reset', { token, password: 'another password 2', password_confirmation: 'another password 2' });
    expect(again.statusCode).toBe(422);
    expect(again.json()).toEqual(RESET_INVALID);
  });

  it('checks the token before the password: an invalid or missing token is the one error', async () => {
    for (const body of [{}, { token: 'x'.repeat(43) }, { token: 43 }, { token: 'short', password: 'short' }, { password: 'x', password_confirmation: 'y' }]) {
      const answer = await api('POST', '/password/reset', body);
      expect(answer.statusCode).toBe(422);
      expect(answer.json()).toEqual(RESET_INVALID);
    }
    const array = await api('POST', '/password/reset', [1, 2]);
    expect(array.json()).toEqual(RESET_INVALID);
    const user = await newUser();
    const token = await resetLinkFor(user.email);
    const short = await api('POST', '/password/reset', { token, password: 'short', password_confirmation: 'short' });
    expect(short.statusCode).toBe(422);
    expect(short.json().errors).toEqual({ password: ['The password field must be at least 8 characters.'] });
    const mismatch = await api('POST', '/password/reset', { token, password: NEW_PASSWORD, password_confirmation: 'something else' });
    expect(mismatch.json().errors).toEqual({ password: ['The password field confirmation does not match.'] });
    const tooLong = await api('POST', '/password/reset', { token, password: 'x'.repeat(1025), password_confirmation: 'x'.repeat(1025) });
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json().errors.password).toEqual(['The password field must not be greater than 1024 characters.']);
    // Still live after the refusals.
    expect((await api('POST', '/password/reset', { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('a link expires after 60 minutes', async () => {
    const user = await newUser();
    const token = await resetLinkFor(user.email);
    await ageAccountTokens(m.t, user.id, 59 * 60_000);
    const db = m.t.storage.tenantDb('demo');
    const before = await tokenRowsOf(m.t, user.id);
    await ageAccountTokens(m.t, user.id, 2 * 60_000);
    const answer = await api('POST', '/password/reset', { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(answer.json()).toEqual(RESET_INVALID);
    // Moved back by a minute, the same link works: the expiry is what refused it.
    await db.updateTable('account_tokens').set({ expires_at: before[0]!.expires_at }).where('id', '=', before[0]!.id).execute();
    expect((await api('POST', '/password/reset', { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('a token dies when its user is deactivated, changes address, or loses the login; a reset never activates', async () => {
    const db = m.t.storage.tenantDb('demo');
    const body = (token: string) => ({ token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    const deactivated = await newUser();
    const t1 = await resetLinkFor(deactivated.email);
    // Deactivated as `groupadmin user deactivate` does it: the link dies with the account ...
    await deactivateUser(db, deactivated.id, (trx) => endAccountLinksOf(trx, deactivated.id));
    expect((await api('POST', '/password/reset', body(t1))).json()).toEqual(RESET_INVALID);
    expect((await db.selectFrom('users').select('is_active').where('id', '=', deactivated.id).executeTakeFirstOrThrow()).is_active).toBeFalsy();
    // ... for good: activated again, the person asks for a new link.
    await activateUser(db, deactivated.id);
    expect((await api('POST', '/password/reset', body(t1))).json()).toEqual(RESET_INVALID);
    await ageAccountTokens(m.t, deactivated.id, 61_000);
    expect((await api('POST', '/password/reset', body(await resetLinkFor(deactivated.email, 1)))).statusCode).toBe(200);

    const moved = await newUser();
    const t2 = await resetLinkFor(moved.email);
    await db.updateTable('users').set({ email: 'elsewhere@example.com' }).where('id', '=', moved.id).execute();
    expect((await api('POST', '/password/reset', body(t2))).json()).toEqual(RESET_INVALID);

    const noLogin = await newUser();
    const t3 = await resetLinkFor(noLogin.email);
    await db.updateTable('users').set({ password: null }).where('id', '=', noLogin.id).execute();
    expect((await api('POST', '/password/reset', body(t3))).json()).toEqual(RESET_INVALID);
  });

  it('a new request voids the earlier link and strips it from the stored copy; at most 1 mail a minute and 5 an hour', async () => {
    const user = await newUser();
    const first = await resetLinkFor(user.email);
    // Within the minute: the same answer, no mail, nothing voided.
    expect((await api('POST', '/password/forgot', { email: user.email })).json()).toEqual(FORGOT_ANSWER);
    await settled();
    expect(await tokenRowsOf(m.t, user.id)).toHaveLength(1);
    await ageAccountTokens(m.t, user.id, 61_000);
    const second = await resetLinkFor(user.email, 1);
    expect(second).not.toBe(first);
    expect((await api('POST', '/password/reset', { token: first, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).json()).toEqual(RESET_INVALID);
    // The outbox keeps no live secret: sent copies lose their link.
    await waitFor(async () => (await mailRowsOf(m.t, user.id)).every((row) => !row.text_body.includes(first) && !row.text_body.includes(second) && !row.html_body.includes(second)), 5000);
    for (const row of await mailRowsOf(m.t, user.id)) expect(row.text_body).toContain('#reset=[removed]');
    // Five in the hour, then no more until the hour has passed.
    for (let count = 3; count <= 5; count++) {
      await ageAccountTokens(m.t, user.id, 61_000);
      await resetLinkFor(user.email, count - 1);
    }
    await ageAccountTokens(m.t, user.id, 61_000);
    expect((await api('POST', '/password/forgot', { email: user.email })).json()).toEqual(FORGOT_ANSWER);
    await settled();
    expect(await tokenRowsOf(m.t, user.id)).toHaveLength(5);
    expect(await mailRowsOf(m.t, user.id)).toHaveLength(5);
    await ageAccountTokens(m.t, user.id, 60 * 60_000);
    await resetLinkFor(user.email, 5);
    expect(m.sink.to(user.email)).toHaveLength(6);
  });

  it('session form: signs the browser in with a new session cookie after the CSRF and Origin checks; a session cookie sent along ends', async () => {
    const user = await newUser();
    const token = await resetLinkFor(user.email);
    const browser = new Browser(m.t);
    await browser.csrfCookie();
    // An earlier session of this browser (another user's, even) is ended by the form.
    const other = await newUser();
    const signedIn = await browser.send('POST', '/session', { body: { username: other.username, password: PASSWORD }, xsrf: true });
    expect(signedIn.statusCode).toBe(200);
    const oldSession = browser.jar.get('groupadmin_session')!;
    const body = { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD };
    for (const xsrf of ['', 'x'.repeat(40)]) {
      const refused = await browser.send('POST', '/password/reset', { body, xsrf });
      expect(refused.statusCode).toBe(419);
      expect(refused.json()).toEqual(CSRF);
    }
    const foreign = await browser.send('POST', '/password/reset', { body, xsrf: true, headers: { origin: 'https://evil.example.org' } });
    expect(foreign.statusCode).toBe(419);
    const ok = await browser.send('POST', '/password/reset', { body, xsrf: true, headers: { origin: 'https://demo.app.example.org' } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ success: true, message: 'success', data: { user: { id: user.id, username: user.username, email: user.email, firstname: 'Rita', lastname: 'Reset' } } });
    const session = browser.jar.get('groupadmin_session')!;
    expect(session).not.toBe(oldSession);
    expect(ok.body).not.toContain(session.split('|')[1]!);
    expect((await client(m.t, oldSession)('GET', '/user')).statusCode).toBe(401);
    const me = await browser.send('GET', '/user');
    expect(me.json().username).toBe(user.username);
  });

  it('the token form ignores a session cookie and the CSRF check, and still ends the cookie\'s session', async () => {
    const user = await newUser();
    const token = await resetLinkFor(user.email);
    const browser = new Browser(m.t);
    await browser.csrfCookie();
    const other = await newUser();
    await browser.send('POST', '/session', { body: { username: other.username, password: PASSWORD }, xsrf: true });
    const oldSession = browser.jar.get('groupadmin_session')!;
    const answer = await browser.send('POST', '/password/reset', { body: { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD } });
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data.username).toBe(user.username);
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect((await client(m.t, oldSession)('GET', '/user')).statusCode).toBe(401);
  });

  it('uses no bearer token sent along: no Idempotency-Key replay of an answer that carries a new token', async () => {
    const user = await newUser();
    const someoneElse = await newUser();
    const bearer = await m.t.login('demo', someoneElse.username, PASSWORD);
    const token = await resetLinkFor(user.email);
    const withKey = client(m.t, bearer);
    const body = { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD };
    const first = await withKey('POST', '/password/reset', body, { 'idempotency-key': 'reset-once' });
    expect(first.statusCode).toBe(200);
    const repeat = await withKey('POST', '/password/reset', body, { 'idempotency-key': 'reset-once' });
    expect(repeat.headers['idempotent-replayed']).toBeUndefined();
    expect(repeat.json()).toEqual(RESET_INVALID);
  });

  it('a link works only on its own tenant', async () => {
    await m.t.addTenant('acme');
    const user = await newUser();
    const token = await resetLinkFor(user.email);
    const body = { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD };
    expect((await client(m.t, undefined, 'acme')('POST', '/password/reset', body)).json()).toEqual(RESET_INVALID);
    expect((await client(m.t, undefined, 'acme')('POST', '/password/forgot', { email: user.email })).json()).toEqual(FORGOT_ANSWER);
    expect((await api('POST', '/password/reset', body)).statusCode).toBe(200);
    await settled();
    expect(m.sink.to(user.email)).toHaveLength(1);
  });

  it('POST /password/forgot ignores a session cookie and needs no CSRF header', async () => {
    const browser = new Browser(m.t);
    browser.jar.set('groupadmin_session', '1|not-a-token');
    const answer = await browser.send('POST', '/password/forgot', { body: { email: 'x@example.com' } });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual(FORGOT_ANSWER);
  });
});
