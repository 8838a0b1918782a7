import { afterEach, describe, expect, it } from 'vitest';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { createMailHub } from '../../../src/modules/mail/settings.js';
import { PASSWORD } from '../../helpers/app.js';
import { freePort } from '../../helpers/processes.js';
import { waitFor } from '../../helpers/wait.js';
import { buildMailWorld, newMail, RESET_TOKEN, type MailWorld } from './helpers.js';

/** The outbox's worker against a real SMTP server on 127.0.0.1, on SQLite (and PostgreSQL in the second pass). */
describe('mail delivery', () => {
  let w: MailWorld;
  afterEach(async () => {
    await w.close();
  });

  const stateOf = async (id: number) => (await w.mail(id)).state;
  const waitForState = (id: number, state: string, timeoutMs = 10_000) => waitFor(async () => (await stateOf(id)) === state, timeoutMs, 20);

  it("sends a queued mail: MAIL_FROM's address with the sender's name, Reply-To, both parts, a stable Message-ID", async () => {
    w = await buildMailWorld();
    const worker = w.startWorker();
    const db = w.t.storage.tenantDb('demo');
    const now = toDbTimestamp(new Date());
    const message = await db
      .insertInto('messages')
      .values({ sender_id: null, subject: 'Bus', body: 'Bus at 8', target: '{}', group_id: null, event_id: null, recipient_count: 1, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const [messageMail, notification] = await w.queue(
      newMail({
        kind: 'message',
        fromName: 'Léa Müller via Pfadi Olten',
        replyTo: 'lea@example.com',
        subject: 'Der Bus fährt um 8',
        text: 'Grüße\n\nhttps://example.org/plan\n',
        html: '<p>Grüße</p><p><a href="https://example.org/plan">https://example.org/plan</a></p>',
        messageId: Number(message.id),
      }),
      newMail({ to: { address: 'noah@example.com', name: 'Noah' } }),
    );
    const recipient = await db
      .insertInto('message_recipients')
      .values({ message_id: Number(message.id), person_id: null, name: 'Mia Muster', name_key: 'muster mia', email: 'mia@example.com', state: 'queued', error: null, mail_id: messageMail! })
      .returning('id')
      .executeTakeFirstOrThrow();

    await w.sink.waitForMails(2);
    const [received] = w.sink.to('mia@example.com');
    expect(received!.envelope).toEqual({ from: 'no-reply@mail.example.org', to: ['mia@example.com'] });
    const parsed = received!.parsed;
    expect(parsed.from!.value).toEqual([{ address: 'no-reply@mail.example.org', name: 'Léa Müller via Pfadi Olten' }]);
    // The name is RFC 2047-encoded in the header itself.
    expect(received!.raw).toMatch(/^From: =\?UTF-8\?[QB]\?/im);
    expect(parsed.replyTo!.value).toEqual([{ address: 'lea@example.com', name: '' }]);
    expect(parsed.to).toMatchObject({ value: [{ address: 'mia@example.com', name: 'Mia Muster' }] });
    expect(parsed.subject).toBe('Der Bus fährt um 8');
    expect(parsed.text).toBe('Grüße\n\nhttps://example.org/plan\n');
    expect(parsed.html).toBe('<p>Grüße</p><p><a href="https://example.org/plan">https://example.org/plan</a></p>');
    // A leader's message is a person's mail; what the service sends on its own says so.
    expect(parsed.headers.get('auto-submitted')).toBeUndefined();
    expect(w.sink.to('noah@example.com')[0]!.parsed.headers.get('auto-submitted')).toBe('auto-generated');

    // The SMTP server has the mail a moment before the worker has written down that it was sent.
    await waitForState(messageMail!, 'sent');
    await waitForState(notification!, 'sent');
    const stored = await w.mail(messageMail!);
    expect(parsed.messageId).toBe(stored.message_id_header);
    expect(stored).toMatchObject({ state: 'sent', attempts: 1, error: null, lease_holder: null, lease_until: null });
    expect(stored.sent_at).not.toBeNull();
    expect(await stateOf(notification!)).toBe('sent');
    await waitFor(async () => (await db.selectFrom('message_recipients').select('state').where('id', '=', Number(recipient.id)).executeTakeFirstOrThrow()).state === 'sent', 5_000);
    await worker.stop();
    expect(worker.errors).toEqual([]);
    expect(w.sink.mails).toHaveLength(2);
  });

  it('removes the token link from the stored copy once the mail is sent', async () => {
    w = await buildMailWorld();
    w.startWorker();
    const link = `http://demo.localhost:3000/#reset=${RESET_TOKEN}`;
    const [id] = await w.queue(newMail({ kind: 'reset', subject: 'Reset', text: `Set a new password:\n${link}\n`, html: `<a href="${link}">${link}</a>` }));
    const [received] = await w.sink.waitForMails(1);
    expect(received!.parsed.text).toContain(`#reset=${RESET_TOKEN}`);
    await waitForState(id!, 'sent');
    const stored = await w.mail(id!);
    expect(stored.text_body).toBe('Set a new password:\nhttp://demo.localhost:3000/#reset=[removed]\n');
    expect(stored.html_body).toBe('<a href="http://demo.localhost:3000/#reset=[removed]">http://demo.localhost:3000/#reset=[removed]</a>');
  });

  it('fails a permanently refused mail at once; the third refusal marks the address failing until it is reset or changes', async () => {
    w = await buildMailWorld();
    const worker = w.startWorker();
    const root = await w.t.rootGroupId('demo');
    const paul = await w.t.addUser('demo', { username: 'paul', email: 'Paul@example.com', firstname: 'Paul', lastname: 'Pfister' });
    await w.t.grant('demo', paul.id, root, 'member');
    const assistant = await w.t.addUser('demo', { username: 'assi' });
    await w.t.grant('demo', assistant.id, root, 'assistant');
    const outsider = await w.t.addUser('demo', { username: 'kid' });
    await w.t.grant('demo', outsider.id, root, 'member');
    w.sink.answers.set('paul@example.com', { code: 550, message: '5.1.1 No such user here' });
    const toPaul = () => newMail({ userId: paul.id, to: { address: 'paul@example.com', name: 'Paul Pfister' } });
    const status = async (token = w.admin) => {
      const answer = await w.call('GET', `/people/${paul.id}/email-status`, token);
      expect(answer.statusCode).toBe(200);
      return answer.json().data.email_status;
    };

    const [first] = await w.queue(toPaul());
    await waitForState(first!, 'failed');
    expect(await w.mail(first!)).toMatchObject({ attempts: 1, error: expect.stringMatching(/^550 5\.1\.1 No such user here/) });
    expect(await status()).toEqual({ state: 'ok', refusals: 1, last_error: expect.stringContaining('550'), since: null });

    const more = await w.queue(toPaul(), toPaul());
    for (const id of more) await waitForState(id, 'failed');
    const failing = await status();
    expect(failing).toMatchObject({ state: 'failing', refusals: 3, last_error: expect.stringContaining('No such user') });
    expect(failing.since).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(w.sink.refusals).toBe(3);

    // No further mail goes to a failing address, even one the server would take now.
    w.sink.answers.delete('paul@example.com');
    const [fourth] = await w.queue(toPaul());
    await waitForState(fourth!, 'failed');
    expect((await w.mail(fourth!)).error).toBe('The e-mail address was refused before.');
    expect(w.sink.mails).toHaveLength(0);
    expect(w.sink.refusals).toBe(3);
    expect((await status()).refusals).toBe(3);

    // Who sees Paul reads it; who may not change him cannot reset it; who does not see him gets 404.
    const assistantToken = await w.t.login('demo', 'assi', PASSWORD);
    expect((await status(assistantToken)).state).toBe('failing');
    expect((await w.call('DELETE', `/people/${paul.id}/email-status`, assistantToken)).json()).toMatchObject({ message: 'This action is unauthorized.' });
    const kidToken = await w.t.login('demo', 'kid', PASSWORD);
    for (const method of ['GET', 'DELETE'] as const) {
      const hidden = await w.call(method, `/people/${paul.id}/email-status`, kidToken);
      expect([hidden.statusCode, hidden.json().message]).toEqual([404, 'Person not found.']);
    }
    expect((await w.call('GET', '/people/999999/email-status')).statusCode).toBe(404);
    expect((await w.call('GET', `/people/${paul.id}/email-status?x=1`)).statusCode).toBe(422);

    const reset = await w.call('DELETE', `/people/${paul.id}/email-status`);
    expect([reset.statusCode, reset.body]).toEqual([204, '']);
    expect(await status()).toEqual({ state: 'ok', refusals: 0, last_error: null, since: null });
    const [fifth] = await w.queue(toPaul());
    await waitForState(fifth!, 'sent');

    // Failing again, then a new address: ok, with nothing counted against it.
    w.sink.answers.set('paul@example.com', { code: 550, message: 'No such user' });
    for (const id of await w.queue(toPaul(), toPaul(), toPaul())) await waitForState(id, 'failed');
    expect((await status()).state).toBe('failing');
    await w.t.storage.tenantDb('demo').updateTable('users').set({ email: 'paul.new@example.com' }).where('id', '=', paul.id).execute();
    expect(await status()).toEqual({ state: 'ok', refusals: 0, last_error: null, since: null });
    await worker.stop();
    expect(worker.errors).toEqual([]);
  });

  it('retries a temporary refusal on MAIL_RETRY_SCHEDULE, then sends it; after the last retry the mail fails', async () => {
    w = await buildMailWorld({ MAIL_RETRY_SCHEDULE: '1' });
    const worker = w.startWorker();
    w.sink.answers.set('busy@example.com', { code: 450, message: '4.2.1 Mailbox busy, try later' });
    w.sink.answers.set('full@example.com', { code: 452, message: '4.2.2 Mailbox full' });
    const queuedAt = Date.now();
    const [busy, full] = await w.queue(newMail({ to: { address: 'busy@example.com', name: 'Busy' } }), newMail({ to: { address: 'full@example.com', name: 'Full' } }));
    await waitFor(async () => (await w.mail(busy!)).attempts === 1, 5_000, 20);
    const waiting = await w.mail(busy!);
    expect(waiting).toMatchObject({ state: 'queued', error: expect.stringContaining('450 4.2.1 Mailbox busy'), lease_holder: null });
    // One second after the attempt.
    expect(waiting.next_attempt_at!).toBeGreaterThanOrEqual(queuedAt + 1_000);
    expect(waiting.next_attempt_at!).toBeLessThanOrEqual(Date.now() + 1_000);
    w.sink.answers.delete('busy@example.com');

    await w.sink.waitForMails(1, 5_000);
    expect(Date.now()).toBeGreaterThanOrEqual(waiting.next_attempt_at!);
    await waitForState(busy!, 'sent');
    expect(await w.mail(busy!)).toMatchObject({ attempts: 2, error: null });

    // One retry in the schedule: the second refusal is the last.
    await waitForState(full!, 'failed', 5_000);
    expect(await w.mail(full!)).toMatchObject({ attempts: 2, error: expect.stringContaining('452 4.2.2 Mailbox full') });
    expect(w.sink.to('full@example.com')).toHaveLength(0);
    expect(w.sink.refusals).toBe(3);
    await worker.stop();
    expect(worker.errors).toEqual([]);
  });

  it('retries, and counts nothing against the recipient, when the SMTP server refuses the login', async () => {
    w = await buildMailWorld();
    const wrong = new URL(w.sink.url);
    wrong.password = 'wrong-password';
    const hub = createMailHub({ ...w.t.config.mail, smtpUrl: wrong.toString() });
    const worker = w.startWorker({ hub });
    const mia = await w.t.addUser('demo', { username: 'mia', email: 'mia@example.com' });
    const [id] = await w.queue(newMail({ userId: mia.id }));
    hub.wake('demo');
    await waitFor(async () => (await w.mail(id!)).attempts === 1, 5_000, 20);
    const stored = await w.mail(id!);
    expect(stored).toMatchObject({ state: 'queued', error: expect.stringContaining('535') });
    expect(stored.error).not.toContain('wrong-password');
    expect(await w.t.storage.tenantDb('demo').selectFrom('email_status').selectAll().execute()).toEqual([]);
    await worker.stop();
    expect(worker.errors).toEqual([]);
  });

  it('retries when the SMTP server cannot be reached, and an instance that reaches it sends the mail once', async () => {
    const closedPort = await freePort();
    w = await buildMailWorld({ MAIL_RETRY_SCHEDULE: '1,1,1,1,1', SMTP_URL: `smtp://mailer:s3cret-pass@127.0.0.1:${closedPort}` });
    const unreachable = w.startWorker();
    const [id] = await w.queue(newMail());
    await waitFor(async () => (await w.mail(id!)).attempts >= 1, 5_000, 20);
    await unreachable.stop();
    const waiting = await w.mail(id!);
    // A lost connection is a reason to retry, never to fail; the error names no password.
    expect(waiting).toMatchObject({ state: 'queued', lease_holder: null, error: expect.stringMatching(/ECONNREFUSED/) });
    expect(waiting.error).not.toContain('s3cret-pass');

    // Another instance, whose SMTP_URL reaches the sink, finds it at its first sweep and sends it when it is due.
    const reaching = w.startWorker({ hub: createMailHub({ ...w.t.config.mail, smtpUrl: w.sink.url }) });
    const [received] = await w.sink.waitForMails(1, 8_000);
    await waitForState(id!, 'sent');
    expect(received!.parsed.messageId).toBe(waiting.message_id_header);
    expect(await w.mail(id!)).toMatchObject({ attempts: 2, error: null });
    await reaching.stop();
    expect([...unreachable.errors, ...reaching.errors]).toEqual([]);
    expect(w.sink.mails).toHaveLength(1);
  });
});
