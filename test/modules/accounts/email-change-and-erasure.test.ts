import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from '../../helpers/app.js';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { buildMailingApp, client, linkToken, mailRowsOf, nthMailTo, tokenRowsOf, type MailingApp } from './helpers.js';

const RESET_INVALID = { token: ['The reset link is invalid or has expired.'] };

/**
 * A changed address tells the old one who changed it and voids the person's links; an erasure takes
 * the person's tokens, unsent mail and mail status, and leaves `[erased]` in the lists of messages.
 * Mails are written in the tenant's language.
 */
describe('accounts: e-mail changes, erasure, languages', () => {
  let m: MailingApp;
  let root: number;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const as = (who: string, tenant = 'demo') => client(m.t, tokens[who], tenant);
  const anonymous = (tenant = 'demo') => client(m.t, undefined, tenant);
  const ok = (answer: LightMyRequestResponse, status = 200) => {
    expect(answer.statusCode, answer.body).toBe(status);
    return answer.json().data;
  };
  const login = async (username: string, role: string | null, fields: Record<string, unknown> = {}, tenant = 'demo') => {
    ids[username] = Number((await m.t.addUser(tenant, { username, email: `${username}@example.com`, firstname: username, lastname: 'Test', ...fields })).id);
    if (role !== null) await m.t.grant(tenant, ids[username]!, await m.t.rootGroupId(tenant), role);
    tokens[username] = await m.t.login(tenant, username, PASSWORD);
    return ids[username]!;
  };
  const resetToken = async (email: string, mailsBefore: number, tenant = 'demo') => {
    ok(await anonymous(tenant)('POST', '/password/forgot', { email }));
    return linkToken(await nthMailTo(m.sink, email, mailsBefore + 1), 'reset');
  };
  const reset = (token: string, tenant = 'demo') => anonymous(tenant)('POST', '/password/reset', { token, password: 'new password 1', password_confirmation: 'new password 1' });

  beforeAll(async () => {
    m = await buildMailingApp();
    await m.t.storage.registry.updateTable('tenants').set({ name: 'Pfadi Olten' }).where('slug', '=', 'demo').execute();
    root = await m.t.rootGroupId('demo');
    await login('admin', 'admin', { firstname: 'Ada', lastname: 'Admin' });
  });
  afterAll(() => m?.close());

  it('an administrator changes a login address: the old one hears who did it, never the new one; the reset link dies', async () => {
    const id = await login('olga', null, { firstname: 'Olga' });
    const token = await resetToken('olga@example.com', 0);
    ok(await as('admin')('PATCH', `/people/${id}`, { email: 'olga.new@example.com' }));
    const notice = await nthMailTo(m.sink, 'olga@example.com', 2);
    expect(notice.parsed.subject).toBe('Your e-mail address at Pfadi Olten was changed');
    expect(notice.parsed.text).toContain('Hello Olga');
    expect(notice.parsed.text).toContain('Ada Admin changed the e-mail address stored for you at Pfadi Olten.');
    expect(notice.raw).not.toContain('olga.new');
    expect(notice.parsed.from?.value[0]?.name).toBe('Pfadi Olten');
    // Back to the old address: the link stays void.
    ok(await as('admin')('PATCH', `/people/${id}`, { email: 'olga@example.com' }));
    expect((await reset(token)).json().errors).toEqual(RESET_INVALID);
    await nthMailTo(m.sink, 'olga.new@example.com', 1);
    const rows = await mailRowsOf(m.t, id);
    expect(rows.map((row) => row.kind)).toEqual(['reset', 'email_changed', 'email_changed']);
    expect(rows[0]!.text_body).toContain('#reset=[removed]');
  });

  it('a person who changes their own address is told "you"; a change of letter case alone is no change', async () => {
    const id = await login('selma', 'admin', { firstname: 'Selma' });
    ok(await as('selma')('PATCH', `/people/${id}`, { email: 'SELMA@example.com' }));
    ok(await as('selma')('PATCH', `/people/${id}`, { email: 'selma.two@example.com' }));
    const notice = await nthMailTo(m.sink, 'selma@example.com', 1);
    expect(notice.parsed.text).toContain('You changed the e-mail address');
    expect((await mailRowsOf(m.t, id)).map((row) => row.kind)).toEqual(['email_changed']);
  });

  it('removing the address of a person without a login notices the old address', async () => {
    const person = ok(await as('admin')('POST', '/people', { firstname: 'Nora', lastname: 'Nologin', email: 'nora@example.com', membership: { group_id: root, role_type: 'member' } }), 201).person;
    ok(await as('admin')('PATCH', `/people/${person.id}`, { email: null }));
    const notice = await nthMailTo(m.sink, 'nora@example.com', 1);
    expect(notice.parsed.text).toContain('Ada Admin changed');
  });

  it('erasure deletes the tokens, unsent mail and mail status, anonymises the messages, and unnames invitations sent', async () => {
    const db = m.t.storage.tenantDb('demo');
    const eve = await login('eve', 'leader', { firstname: 'Eve', lastname: 'Erased' });
    await resetToken('eve@example.com', 0);
    const now = toDbTimestamp(new Date());
    // A mail that waits (far in the future) and a failing status.
    await db
      .insertInto('mails')
      .values({
        kind: 'message', user_id: eve, to_address: 'eve@example.com', to_name: 'Eve Erased', from_name: 'x', reply_to: null, subject: 'Later', text_body: 't', html_body: 'h',
        message_id_header: '<later@example.org>', state: 'queued', next_attempt_at: Date.now() + 86_400_000, account_token_id: null, message_id: null, created_at: now,
      })
      .execute();
    await db.insertInto('email_status').values({ user_id: eve, email: 'eve@example.com', refusals: 1, last_error: '550', since: null, updated_at: now }).execute();
    // A message she sent and one she received.
    const sent = await db.insertInto('messages').values({ sender_id: eve, subject: 'From Eve', body: 'b', target: '{}', group_id: root, event_id: null, recipient_count: 1, created_at: now }).returning('id').executeTakeFirstOrThrow();
    const received = await db.insertInto('messages').values({ sender_id: ids.admin!, subject: 'To Eve', body: 'b', target: '{}', group_id: root, event_id: null, recipient_count: 1, created_at: now }).returning('id').executeTakeFirstOrThrow();
    await db.insertInto('message_recipients').values({ message_id: Number(received.id), person_id: eve, name: 'Eve Erased', name_key: 'erased eve', email: 'eve@example.com', state: 'sent', error: null, mail_id: null }).execute();
    await db.insertInto('message_recipients').values({ message_id: Number(sent.id), person_id: ids.admin!, name: 'Ada Admin', name_key: 'admin ada', email: 'admin@example.com', state: 'sent', error: null, mail_id: null }).execute();
    // Her own export lists what she received.
    const exported = ok(await as('eve')('GET', '/user/export')).export;
    expect(exported.messages).toEqual([{ id: Number(received.id), subject: 'To Eve', created_at: expect.any(String) }]);
    // An invitation she sent.
    const ina = ok(await as('admin')('POST', '/people', { firstname: 'Ina', lastname: 'Vited', email: 'ina@example.com', membership: { group_id: root, role_type: 'member' } }), 201).person;
    ok(await as('eve')('POST', `/people/${ina.id}/invitation`), 202);
    const invitation = linkToken(await nthMailTo(m.sink, 'ina@example.com', 1), 'invitation');
    expect(ok(await anonymous()('POST', '/invitation/check', { token: invitation })).inviter).toEqual({ firstname: 'Eve', lastname: 'Erased' });

    expect((await as('admin')('DELETE', `/people/${eve}`)).statusCode).toBe(204);
    expect(await tokenRowsOf(m.t, eve)).toEqual([]);
    expect((await mailRowsOf(m.t, eve)).filter((row) => row.state !== 'sent')).toEqual([]);
    expect(await db.selectFrom('email_status').selectAll().where('user_id', '=', eve).execute()).toEqual([]);
    const recipients = await db.selectFrom('message_recipients').select(['person_id', 'name', 'email']).where('message_id', '=', Number(received.id)).execute();
    expect(recipients).toEqual([{ person_id: null, name: '[erased]', email: null }]);
    expect((await db.selectFrom('messages').select('sender_id').where('id', '=', Number(sent.id)).executeTakeFirstOrThrow()).sender_id).toBeNull();
    expect(ok(await anonymous()('POST', '/invitation/check', { token: invitation }))).toEqual({ firstname: 'Ina', lastname: 'Vited', tenant: { name: 'Pfadi Olten' }, inviter: null });
  });

  it('erasure settles the lines of messages whose mail to the person was not sent yet', async () => {
    const db = m.t.storage.tenantDb('demo');
    const ola = await login('ola', null, { firstname: 'Ola', lastname: 'Waiting' });
    const now = toDbTimestamp(new Date());
    const message = await db.insertInto('messages').values({ sender_id: ids.admin!, subject: 'Soon', body: 'b', target: JSON.stringify({ group_id: root, below: false, role_types: null, guardians: 'include' }), group_id: root, event_id: null, recipient_count: 1, created_at: now }).returning('id').executeTakeFirstOrThrow();
    // Her mail waits for a retry far in the future.
    const mail = await db
      .insertInto('mails')
      .values({
        kind: 'message', user_id: ola, to_address: 'ola@example.com', to_name: 'Ola Waiting', from_name: 'x', reply_to: null, subject: 'Soon', text_body: 't', html_body: 'h',
        message_id_header: '<soon@example.org>', state: 'queued', next_attempt_at: Date.now() + 86_400_000, account_token_id: null, message_id: Number(message.id), created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.insertInto('message_recipients').values({ message_id: Number(message.id), person_id: ola, name: 'Ola Waiting', name_key: 'waiting ola', email: 'ola@example.com', state: 'queued', error: null, mail_id: Number(mail.id) }).execute();

    expect((await as('admin')('DELETE', `/people/${ola}`)).statusCode).toBe(204);
    const shown = ok(await as('admin')('GET', `/messages/${message.id}`)).message;
    expect(shown.counts).toEqual({ recipients: 1, queued: 0, sent: 0, failed: 1, unreachable: 0 });
    expect(shown.recipients).toEqual([{ person_id: null, name: '[erased]', email: null, state: 'failed', error: null }]);
  });

  it('writes every mail in the tenant\'s language, with "du" in German and "tu" in French', async () => {
    const tenantNames = { de: 'Verein de', fr: 'Éclaireurs fr' };
    const expected = {
      de: {
        reset: 'Ein neues Passwort für Verein de',
        username: 'Dein Benutzername ist: de_user',
        invitation: 'Élise Morel lädt dich zu Verein de ein',
        invitationFooter: 'Du erhältst diese E-Mail, weil Élise Morel dich zu Verein de eingeladen hat.',
        notice: 'Deine E-Mail-Adresse bei Verein de wurde geändert',
        noticeBody: 'Élise Morel hat die E-Mail-Adresse geändert, die bei Verein de für dich gespeichert ist.',
      },
      fr: {
        reset: 'Un nouveau mot de passe pour Éclaireurs fr',
        username: 'Ton nom d’utilisateur est : fr_user',
        invitation: 'Élise Morel t’invite à rejoindre Éclaireurs fr',
        invitationFooter: 'Tu reçois ce message parce qu’Élise Morel t’a invité·e à rejoindre Éclaireurs fr.',
        notice: 'Ton adresse e-mail chez Éclaireurs fr a été modifiée',
        noticeBody: 'Les messages d’Éclaireurs fr n’arrivent plus à cette adresse.',
      },
    };
    for (const locale of ['de', 'fr'] as const) {
      const tenant = `club-${locale}`;
      await m.t.addTenant(tenant);
      await m.t.storage.registry.updateTable('tenants').set({ name: tenantNames[locale], locale }).where('slug', '=', tenant).execute();
      const admin = `${locale}_admin`;
      await login(admin, 'admin', { firstname: 'Élise', lastname: 'Morel' }, tenant);
      const user = `${locale}_user`;
      const userId = await login(user, null, { email: `${user}@example.com` }, tenant);
      await resetToken(`${user}@example.com`, 0, tenant);
      const resetMail = m.sink.to(`${user}@example.com`)[0]!;
      expect(resetMail.parsed.subject).toBe(expected[locale].reset);
      expect(resetMail.parsed.text).toContain(expected[locale].username);
      expect(String(resetMail.parsed.html)).toContain(`<html lang="${locale}">`);
      const person = ok(await as(admin, tenant)('POST', '/people', { firstname: 'Ina', lastname: locale, email: `ina.${locale}@example.com`, membership: { group_id: await m.t.rootGroupId(tenant), role_type: 'member' } }), 201).person;
      ok(await as(admin, tenant)('POST', `/people/${person.id}/invitation`), 202);
      const invitation = await nthMailTo(m.sink, `ina.${locale}@example.com`, 1);
      expect(invitation.parsed.subject).toBe(expected[locale].invitation);
      expect(invitation.parsed.text).toContain(expected[locale].invitationFooter);
      ok(await as(admin, tenant)('PATCH', `/people/${userId}`, { email: `${user}.new@example.com` }));
      const notice = await nthMailTo(m.sink, `${user}@example.com`, 2);
      expect(notice.parsed.subject).toBe(expected[locale].notice);
      expect(notice.parsed.text).toContain(expected[locale].noticeBody);
      for (const mail of [resetMail, invitation, notice]) {
        const text = `${mail.parsed.subject}\n${mail.parsed.text}`;
        if (locale === 'de') expect(text).not.toMatch(/\b(?:Sie|Ihnen|Ihre?[mnrs]?)\b/);
        // The typographic apostrophe only, and the informal "tu".
        else expect(text).not.toMatch(/'|\b[Vv]ous\b|\b[Vv]otre\b|\bde [AEIOUÉ]/);
      }
    }
  });
});
