import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from '../../helpers/app.js';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { ageAccountTokens, Browser, buildMailingApp, client, CSRF, linkToken, mailRowsOf, nthMailTo, tokenRowsOf, type MailingApp } from './helpers.js';

const INVALID = { success: false, message: 'The invitation is invalid or has expired.', errors: { token: ['The invitation is invalid or has expired.'] } };
const UNAUTHORIZED = { success: false, message: 'This action is unauthorized.' };
const NEW_PASSWORD = 'a brand new password';

/**
 * Invitations. The tenant "Pfadi Olten": root ── troop, root ── pack; `admin` (admin on the root),
 * `leader` (leader of the troop, Lena Berg), `packleader` (leader of the pack), `pat` (a parent with
 * a login, guardian of Kim). People without a login are made through the API.
 */
describe('invitations', () => {
  let m: MailingApp;
  let troop: number;
  let pack: number;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const as = (who: string) => client(m.t, tokens[who]);
  const anonymous = () => client(m.t);

  const created = (answer: LightMyRequestResponse) => {
    expect(answer.statusCode, answer.body).toBe(201);
    return answer.json().data;
  };
  const login = async (username: string, group: number | null, role: string, fields: Record<string, unknown> = {}) => {
    ids[username] = Number((await m.t.addUser('demo', { username, email: `${username}@example.com`, firstname: username, lastname: 'Test', ...fields })).id);
    if (group !== null) await m.t.grant('demo', ids[username]!, group, role);
    tokens[username] = await m.t.login('demo', username, PASSWORD);
  };
  let serial = 0;
  /** A person without a login, member of `group`, with an address unless told otherwise. */
  const invitee = async (group: number, fields: Record<string, unknown> = {}) => {
    serial += 1;
    const body = { firstname: `Ina${serial}`, lastname: 'Vited', email: `ina${serial}@example.com`, membership: { group_id: group, role_type: 'member' }, ...fields };
    const person = created(await as('admin')('POST', '/people', body)).person;
    return { id: person.id as number, email: person.email as string | null, firstname: person.firstname as string };
  };
  const invite = (who: string, id: number, headers: Record<string, string> = {}) => as(who)('POST', `/people/${id}/invitation`, undefined, headers);
  /** Invites and reads the token from the mail the SMTP server received. */
  const invitationToken = async (id: number, email: string, mailsBefore = 0, who = 'leader') => {
    const answer = await invite(who, id);
    expect(answer.statusCode, answer.body).toBe(202);
    return linkToken(await nthMailTo(m.sink, email, mailsBefore + 1), 'invitation');
  };

  beforeAll(async () => {
    m = await buildMailingApp();
    await m.t.storage.registry.updateTable('tenants').set({ name: 'Pfadi Olten' }).where('slug', '=', 'demo').execute();
    const root = await m.t.rootGroupId('demo');
    await login('admin', root, 'admin');
    troop = created(await as('admin')('POST', '/groups', { parent_id: root, name: 'Troop' })).group.id;
    pack = created(await as('admin')('POST', '/groups', { parent_id: root, name: 'Pack' })).group.id;
    await login('leader', troop, 'leader', { firstname: 'Lena', lastname: 'Berg' });
    await login('packleader', pack, 'leader');
    await login('pat', null, 'member');
  });
  afterAll(() => m?.close());

  it('mails a link valid 7 days that names the inviter, and answers 202 with the expiry', async () => {
    const ina = await invitee(troop);
    const before = Date.now();
    const answer = await invite('leader', ina.id, { 'content-type': 'text/plain' });
    expect(answer.statusCode, answer.body).toBe(202);
    const body = answer.json();
    expect(body).toEqual({ success: true, message: 'success', data: { invitation: { person_id: ina.id, expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/) } } });
    const expiresMs = Date.parse(body.data.invitation.expires_at);
    expect(expiresMs - before).toBeGreaterThanOrEqual(7 * 86_400_000 - 1000);
    expect(expiresMs - Date.now()).toBeLessThanOrEqual(7 * 86_400_000);
    const mail = await nthMailTo(m.sink, ina.email!, 1);
    expect(mail.parsed.from?.value).toEqual([{ address: m.t.config.mail.from.address, name: 'Pfadi Olten' }]);
    expect(mail.parsed.subject).toBe('Lena Berg invites you to Pfadi Olten');
    expect(mail.parsed.text).toContain(`Hello ${ina.firstname}`);
    expect(mail.parsed.text).toMatch(/https:\/\/demo\.app\.example\.org\/#invitation=[A-Za-z0-9_-]{43}\n/);
    const token = linkToken(mail, 'invitation');
    const check = await anonymous()('POST', '/invitation/check', { token });
    expect(check.statusCode).toBe(200);
    expect(check.json()).toEqual({
      success: true,
      message: 'success',
      data: { firstname: ina.firstname, lastname: 'Vited', tenant: { name: 'Pfadi Olten' }, inviter: { firstname: 'Lena', lastname: 'Berg' } },
    });
  });

  it('404 for a person the caller does not see, 403 for who may not invite, 422 for who cannot be invited', async () => {
    const inPack = await invitee(pack);
    expect((await invite('leader', inPack.id)).json()).toEqual({ success: false, message: 'Person not found.' });
    expect((await invite('leader', inPack.id)).statusCode).toBe(404);
    expect((await invite('leader', 999_999)).statusCode).toBe(404);
    // A role of `read` in the pack: the troop's leader may change the person, not invite them.
    const helper = await invitee(troop);
    await m.t.grant('demo', helper.id, pack, 'assistant');
    const refused = await invite('leader', helper.id);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual(UNAUTHORIZED);
    expect((await invite('admin', helper.id)).statusCode).toBe(202);
    // A future role counts too; an ended one does not.
    const later = await invitee(troop);
    await m.t.grant('demo', later.id, pack, 'assistant', { startOn: '2999-01-01' });
    expect((await invite('leader', later.id)).statusCode).toBe(403);
    const ended = await invitee(troop);
    await m.t.grant('demo', ended.id, pack, 'assistant', { startOn: '2000-01-01', endOn: '2001-01-01' });
    expect((await invite('leader', ended.id)).statusCode).toBe(202);
    // Being the guardian is no right to invite.
    const kim = await invitee(troop);
    created(await as('admin')('POST', `/people/${kim.id}/guardians`, { guardian_id: ids.pat }));
    const byParent = await invite('pat', kim.id);
    expect(byParent.statusCode).toBe(403);
    expect(byParent.json()).toEqual(UNAUTHORIZED);
    // The ability.
    const reader = created(await as('admin')('POST', '/tokens', { name: 'reader', abilities: ['people:read'] })).plainTextToken as string;
    const withoutAbility = await client(m.t, reader)('POST', `/people/${kim.id}/invitation`);
    expect(withoutAbility.statusCode).toBe(403);
    expect(withoutAbility.json()).toEqual({ success: false, message: 'Invalid ability provided.' });

    const db = m.t.storage.tenantDb('demo');
    const errorsOf = async (id: number) => {
      const answer = await invite('leader', id);
      expect(answer.statusCode, answer.body).toBe(422);
      return answer.json().errors;
    };
    const deactivated = await invitee(troop);
    await db.updateTable('users').set({ is_active: 0 }).where('id', '=', deactivated.id).execute();
    expect(await errorsOf(deactivated.id)).toEqual({ person: ['The person is deactivated.'] });
    expect(await errorsOf(ids.leader!)).toEqual({ person: ['The person already has a login.'] });
    const noAddress = await invitee(troop, { email: null });
    expect(await errorsOf(noAddress.id)).toEqual({ email: ['The person has no e-mail address.'] });
    const refusedBefore = await invitee(troop);
    await db
      .insertInto('email_status')
      .values({ user_id: refusedBefore.id, email: refusedBefore.email!.toUpperCase(), refusals: 3, last_error: '550 no such user', since: toDbTimestamp(new Date()), updated_at: toDbTimestamp(new Date()) })
      .execute();
    expect(await errorsOf(refusedBefore.id)).toEqual({ email: ['The e-mail address was refused before.'] });
    // Two refusals are not yet failing.
    await db.updateTable('email_status').set({ refusals: 2 }).where('user_id', '=', refusedBefore.id).execute();
    expect((await invite('leader', refusedBefore.id)).statusCode).toBe(202);
  });

  it('the person page offers `invite` exactly to who may invite a person who can be invited', async () => {
    const ina = await invitee(troop);
    const can = async (who: string, id: number) => (await as(who)('GET', `/people/${id}?include=can`)).json().data.can.invite;
    expect(await can('leader', ina.id)).toBe(true);
    expect(await can('admin', ina.id)).toBe(true);
    expect(await can('leader', ids.leader!)).toBe(false);
    const helper = await invitee(troop);
    await m.t.grant('demo', helper.id, pack, 'assistant');
    expect(await can('leader', helper.id)).toBe(false);
    const noAddress = await invitee(troop, { email: null });
    expect(await can('leader', noAddress.id)).toBe(false);
    const kid = await invitee(troop);
    created(await as('admin')('POST', `/people/${kid.id}/guardians`, { guardian_id: ids.pat }));
    expect(await can('pat', kid.id)).toBe(false);
  });

  it('accept, token form: the person gets the login and POST /login\'s answer, no cookie; the link is used up', async () => {
    const ina = await invitee(troop);
    const token = await invitationToken(ina.id, ina.email!);
    const username = `ina.${ina.id}`;
    const answer = await anonymous()('POST', '/invitation/accept', { token, username, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['set-cookie']).toBeUndefined();
    const body = answer.json();
    expect(Object.keys(body)).toEqual(['success', 'message', 'data', 'api_key']);
    expect(body.data).toEqual({ id: ina.id, username, email: ina.email, firstname: ina.firstname, lastname: 'Vited', api_key: body.api_key.plainTextToken });
    expect((await client(m.t, body.api_key.plainTextToken)('GET', '/user')).json().username).toBe(username);
    await m.t.login('demo', username, NEW_PASSWORD);
    expect((await as('leader')('GET', `/people/${ina.id}`)).json().data.person.has_login).toBe(true);
    expect((await anonymous()('POST', '/invitation/check', { token })).json()).toEqual(INVALID);
    expect((await anonymous()('POST', '/invitation/accept', { token, username: 'other', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).json()).toEqual(INVALID);
    const again = await invite('leader', ina.id);
    expect(again.json().errors).toEqual({ person: ['The person already has a login.'] });
  });

  it('accept checks the token first, then the username and password', async () => {
    for (const body of [{}, { token: 'x'.repeat(43), username: '', password: 'x' }, { token: null }]) {
      const answer = await anonymous()('POST', '/invitation/accept', body);
      expect(answer.statusCode).toBe(422);
      expect(answer.json()).toEqual(INVALID);
    }
    for (const body of [{}, { token: 'x'.repeat(43) }, { token: 7 }]) expect((await anonymous()('POST', '/invitation/check', body)).json()).toEqual(INVALID);
    const ina = await invitee(troop);
    const token = await invitationToken(ina.id, ina.email!);
    const accept = (fields: Record<string, unknown>) => anonymous()('POST', '/invitation/accept', { token, ...fields });
    const taken = await accept({ username: 'LEADER', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(taken.statusCode).toBe(422);
    expect(taken.json()).toEqual({ success: false, message: 'The username has already been taken.', errors: { username: ['The username has already been taken.'] } });
    expect((await accept({ username: 'ina', password: 'short', password_confirmation: 'short' })).json().errors).toEqual({ password: ['The password field must be at least 8 characters.'] });
    expect((await accept({ username: 'ina', password: NEW_PASSWORD, password_confirmation: 'other' })).json().errors).toEqual({ password: ['The password field confirmation does not match.'] });
    expect((await accept({ password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).json().errors).toEqual({ username: ['The username field is required.'] });
    expect((await accept({ username: 'with space', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).json().errors).toHaveProperty('username');
    expect((await accept({ username: `ina${ina.id}`, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('accept, session form: CSRF and Origin checked, a new session cookie, a session cookie sent along ends', async () => {
    const ina = await invitee(troop);
    const token = await invitationToken(ina.id, ina.email!);
    const browser = new Browser(m.t);
    await browser.csrfCookie();
    await browser.send('POST', '/session', { body: { username: 'pat', password: PASSWORD }, xsrf: true });
    const patSession = browser.jar.get('groupadmin_session')!;
    const body = { token, username: `ina${ina.id}`, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD };
    const mismatch = await browser.send('POST', '/invitation/accept', { body, xsrf: 'y'.repeat(40) });
    expect(mismatch.statusCode).toBe(419);
    expect(mismatch.json()).toEqual(CSRF);
    expect((await browser.send('POST', '/invitation/accept', { body, xsrf: true, headers: { origin: 'http://demo.localhost:9999' } })).statusCode).toBe(419);
    // The request's own origin is as good as PUBLIC_URL's.
    const answer = await browser.send('POST', '/invitation/accept', { body, xsrf: true, headers: { origin: 'http://demo.localhost' } });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toEqual({ success: true, message: 'success', data: { user: { id: ina.id, username: body.username, email: ina.email, firstname: ina.firstname, lastname: 'Vited' } } });
    expect(browser.jar.get('groupadmin_session')).not.toBe(patSession);
    expect((await browser.send('GET', '/user')).json().username).toBe(body.username);
    expect((await client(m.t, patSession)('GET', '/user')).statusCode).toBe(401);
  });

  it('a new invitation voids the earlier one and strips its link from the stored copy', async () => {
    const ina = await invitee(troop);
    const first = await invitationToken(ina.id, ina.email!);
    const second = await invitationToken(ina.id, ina.email!, 1);
    expect(second).not.toBe(first);
    expect((await anonymous()('POST', '/invitation/check', { token: first })).json()).toEqual(INVALID);
    expect((await anonymous()('POST', '/invitation/check', { token: second })).statusCode).toBe(200);
    const rows = await mailRowsOf(m.t, ina.id);
    expect(rows.map((row) => row.kind)).toEqual(['invitation', 'invitation']);
    for (const row of rows) expect(`${row.text_body}${row.html_body}`).not.toContain(first);
  });

  it('an invitation dies after 7 days, when the person is deactivated or gets another address', async () => {
    const db = m.t.storage.tenantDb('demo');
    const old = await invitee(troop);
    const t1 = await invitationToken(old.id, old.email!);
    await ageAccountTokens(m.t, old.id, 7 * 86_400_000 + 1000);
    expect((await anonymous()('POST', '/invitation/check', { token: t1 })).json()).toEqual(INVALID);
    const deactivated = await invitee(troop);
    const t2 = await invitationToken(deactivated.id, deactivated.email!);
    await db.updateTable('users').set({ is_active: 0 }).where('id', '=', deactivated.id).execute();
    expect((await anonymous()('POST', '/invitation/check', { token: t2 })).json()).toEqual(INVALID);
    // A changed address: through the API, which also tells the old address who changed it.
    const moved = await invitee(troop);
    const t3 = await invitationToken(moved.id, moved.email!);
    const changed = await as('leader')('PATCH', `/people/${moved.id}`, { email: `new.${moved.email}` });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await anonymous()('POST', '/invitation/check', { token: t3 })).json()).toEqual(INVALID);
    expect((await tokenRowsOf(m.t, moved.id)).every((row) => row.used_at === null)).toBe(true);
    const notice = await nthMailTo(m.sink, moved.email!, 2);
    expect(notice.parsed.subject).toBe('Your e-mail address at Pfadi Olten was changed');
    expect(notice.parsed.text).toContain('Lena Berg changed the e-mail address');
    expect(`${notice.raw}`).not.toContain(`new.${moved.email}`);
    expect(m.sink.to(`new.${moved.email}`)).toEqual([]);
  });

  it('takes part in Idempotency-Key: a repeat answers as the first did and mails nothing more', async () => {
    const ina = await invitee(troop);
    const first = await invite('leader', ina.id, { 'idempotency-key': `invite-${ina.id}` });
    expect(first.statusCode).toBe(202);
    const repeat = await invite('leader', ina.id, { 'idempotency-key': `invite-${ina.id}` });
    expect(repeat.statusCode).toBe(202);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.json()).toEqual(first.json());
    expect(await tokenRowsOf(m.t, ina.id)).toHaveLength(1);
    expect(await mailRowsOf(m.t, ina.id)).toHaveLength(1);
  });
});
