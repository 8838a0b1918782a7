import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { toApiTimestamp, toDbTimestamp } from '../../../src/lib/time.js';
import { createMailHub } from '../../../src/modules/mail/settings.js';
import { failingAddressesOf, forgetMailOf, voidMailTokens } from '../../../src/modules/mail/rules.js';
import { waitFor } from '../../helpers/wait.js';
import { buildMailWorld, newMail, RESET_TOKEN, type MailWorld } from './helpers.js';

const HOUR_MS = 3_600_000;

/** `groupadmin ...` in this process, on the test app's configuration: its exit status and what it printed. */
async function groupadmin(w: MailWorld, args: string[], env: Record<string, string> = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  const saved = { ...process.env };
  Object.assign(process.env, { DATA_DIR: w.t.dataDir, LOG_LEVEL: 'silent', DATABASE_URL: w.t.config.databaseUrl ?? '', REDIS_URL: '', SMTP_URL: '', MAIL_FROM: 'Groupadmin <no-reply@mail.example.org>', ...env });
  const out: string[] = [];
  const err: string[] = [];
  const capture = (into: string[]) => (chunk: string | Uint8Array, ...rest: unknown[]) => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    (rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
    return true;
  };
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture(out));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture(err));
  try {
    const status = await main(args);
    return { status, stdout: out.join(''), stderr: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    process.env = saved;
  }
}

describe('the outbox: held mail, the command line, links and housekeeping', () => {
  let w: MailWorld;
  afterEach(async () => {
    await w.close();
  });
  const db = () => w.t.storage.tenantDb('demo');
  const age = (ids: number[], ms: number, state?: 'sent') =>
    db()
      .updateTable('mails')
      .set({ created_at: toDbTimestamp(new Date(Date.now() - ms)), ...(state ? { sent_at: toDbTimestamp(new Date(Date.now() - ms)) } : {}) })
      .where('id', 'in', ids)
      .execute();

  it('holds mail without SMTP_URL, and `mail list` and `mail show` print it', async () => {
    w = await buildMailWorld({}, { held: true });
    const worker = w.startWorker({ sweepMs: 100 });
    const link = `http://demo.localhost:3000/#invitation=${RESET_TOKEN}`;
    const [invitation, notice] = await w.queue(
      newMail({ kind: 'invitation', fromName: 'Ada Admin via Demo', replyTo: 'admin@example.com', subject: 'You are invited', text: `Accept here:\n${link}\n` }),
      newMail({ subject: 'Tab\there', to: { address: 'noah@example.com', name: '' } }),
    );
    // Swept a few times: held mail stays held (and keeps its link: the operator follows it).
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await w.mail(invitation!)).state).toBe('held');
    expect(w.sink.mails).toHaveLength(0);

    const listed = await groupadmin(w, ['mail', 'list', 'demo']);
    expect(listed.status, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n').map((line) => line.split('\t'));
    expect(lines).toEqual([
      [String(invitation), 'held', expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/), 'mia@example.com', 'You are invited'],
      [String(notice), 'held', expect.any(String), 'noah@example.com', 'Tab here'],
    ]);
    expect((await groupadmin(w, ['mail', 'list', 'demo', '--state', 'sent'])).stdout).toBe('');
    expect((await groupadmin(w, ['mail', 'list', 'demo', '--state', 'held'])).stdout.split('\n')).toHaveLength(3);
    expect((await groupadmin(w, ['mail', 'list', 'demo', '--state', 'lost'])).status).toBe(2);

    const shown = await groupadmin(w, ['mail', 'show', 'demo', String(invitation)]);
    expect(shown.status, shown.stderr).toBe(0);
    const stored = await w.mail(invitation!);
    expect(shown.stdout).toBe(
      [
        'From: Ada Admin via Demo <no-reply@mail.example.org>',
        'To: Mia Muster <mia@example.com>',
        'Reply-To: admin@example.com',
        'Subject: You are invited',
        `Date: ${new Date(toApiTimestamp(stored.created_at)).toUTCString()}`,
        `Message-ID: ${stored.message_id_header}`,
        '',
        'Accept here:',
        link,
        '',
      ].join('\n'),
    );
    const missing = await groupadmin(w, ['mail', 'show', 'demo', '999']);
    expect([missing.status, missing.stderr]).toEqual([1, 'groupadmin: mail 999 not found in tenant "demo"\n']);
    expect((await groupadmin(w, ['mail', 'show', 'demo', 'x'])).stderr).toBe('groupadmin: id must be a positive whole number, not "x"\n');
    expect((await groupadmin(w, ['mail', 'list', 'nosuch'])).stderr).toBe('groupadmin: tenant "nosuch" not found\n');
    await worker.stop();
    expect(worker.errors).toEqual([]);
  });

  it('sends held mail younger than 24 h once SMTP_URL is set; older held mail expires until `mail release`', async () => {
    w = await buildMailWorld({}, { held: true });
    const [young, old, older, voided] = await w.queue(
      newMail({ subject: 'young', to: { address: 'young@example.com', name: '' } }),
      newMail({ subject: 'old', to: { address: 'old@example.com', name: '' } }),
      newMail({ subject: 'older', to: { address: 'older@example.com', name: '' } }),
      newMail({ kind: 'invitation', accountTokenId: 77, text: `#invitation=${RESET_TOKEN}`, to: { address: 'voided@example.com', name: '' } }),
    );
    await age([young!], 23 * HOUR_MS);
    await age([old!], 25 * HOUR_MS);
    await age([older!, voided!], 72 * HOUR_MS);
    await voidMailTokens(db(), [77]);
    expect(await w.mail(voided!)).toMatchObject({ state: 'expired', text_body: '#invitation=[removed]', account_token_id: null });

    // The same outbox, now served by an instance with SMTP_URL.
    const worker = w.startWorker({ hub: createMailHub({ ...w.t.config.mail, smtpUrl: w.sink.url }), sweepMs: 200 });
    await w.sink.waitForMails(1);
    await waitFor(async () => (await w.mail(young!)).state === 'sent', 5_000, 20);
    expect((await w.mail(old!)).state).toBe('expired');
    expect((await w.mail(older!)).state).toBe('expired');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(w.sink.mails.map((mail) => mail.parsed.subject)).toEqual(['young']);

    const released = await groupadmin(w, ['mail', 'release', 'demo', '--since', toDbTimestamp(new Date(Date.now() - 48 * HOUR_MS)).replace(' ', 'T') + 'Z'], { SMTP_URL: w.sink.url });
    expect(released).toMatchObject({ status: 0, stdout: 'queued 1 mail(s); the servers send them within 5 minutes\n' });
    await w.sink.waitForMails(2);
    expect(w.sink.mails.map((mail) => mail.parsed.subject)).toEqual(['young', 'old']);
    // Without --since: the rest, but never a mail whose link was removed.
    expect((await groupadmin(w, ['mail', 'release', 'demo'])).stdout).toBe('queued 1 mail(s); SMTP_URL is not set here: a server with SMTP_URL sends them\n');
    await w.sink.waitForMails(3);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(w.sink.mails.map((mail) => mail.parsed.subject).sort()).toEqual(['old', 'older', 'young']);
    expect((await w.mail(voided!)).state).toBe('expired');
    expect((await groupadmin(w, ['mail', 'release', 'demo', '--since', 'yesterday'])).stderr).toBe(
      'groupadmin: --since must be a date (2026-12-01) or a moment (2026-12-01T08:00:00Z), not "yesterday"\n',
    );
    await worker.stop();
    expect(worker.errors).toEqual([]);
  });

  it('deletes sent mail after MAIL_RETENTION_DAYS, and removes links whose token ran out', async () => {
    w = await buildMailWorld({ MAIL_RETENTION_DAYS: '30' });
    const first = w.startWorker();
    const [kept, gone, failed] = await w.queue(newMail({ subject: 'kept' }), newMail({ subject: 'gone' }), newMail({ subject: 'failed', to: { address: 'bad@example.com', name: '' } }));
    w.sink.answers.set('bad@example.com', { code: 550, message: 'No' });
    await w.sink.waitForMails(2);
    await waitFor(async () => (await w.mail(failed!)).state === 'failed', 5_000, 20);
    await first.stop();
    await age([kept!], 29 * 24 * HOUR_MS, 'sent');
    await age([gone!, failed!], 31 * 24 * HOUR_MS, 'sent');
    // A reset link lives 60 minutes: queued for longer (the server refused it for now), it is not sent any more.
    const link = `https://demo.example.org/#reset=${RESET_TOKEN}`;
    const [stale] = await w.queue(newMail({ kind: 'reset', accountTokenId: 5, text: link, html: `<a href="${link}">x</a>` }));
    await age([stale!], 61 * 60_000);

    const sweeping = w.startWorker({ sweepMs: 100 });
    await waitFor(async () => (await db().selectFrom('mails').select('id').where('id', '=', gone!).executeTakeFirst()) === undefined, 5_000, 20);
    expect((await w.mail(kept!)).state).toBe('sent');
    expect(await db().selectFrom('mails').select('id').where('id', '=', failed!).executeTakeFirst()).toBeUndefined();
    await waitFor(async () => (await w.mail(stale!)).state === 'expired', 5_000, 20);
    expect(await w.mail(stale!)).toMatchObject({ text_body: 'https://demo.example.org/#reset=[removed]', html_body: '<a href="https://demo.example.org/#reset=[removed]">x</a>' });
    expect(w.sink.mails).toHaveLength(2);
    await sweeping.stop();
    expect(sweeping.errors).toEqual([]);
  });

  it('voids token links, finds failing addresses, and forgets what was not yet sent to an erased person', async () => {
    w = await buildMailWorld({}, { held: true });
    const mia = await w.t.addUser('demo', { username: 'mia', email: 'mia@example.com' });
    const noah = await w.t.addUser('demo', { username: 'noah', email: 'noah@example.com' });
    const link = (token: string) => `https://demo.example.org/#invitation=${token}`;
    const otherToken = 'Z'.repeat(43);
    const [invited, other, toMia, toNoah] = await w.queue(
      newMail({ kind: 'invitation', userId: mia.id, accountTokenId: 1, text: `${link(RESET_TOKEN)}\n`, html: `<a href="${link(RESET_TOKEN)}">${link(RESET_TOKEN)}</a>` }),
      newMail({ kind: 'invitation', userId: noah.id, accountTokenId: 2, text: link(otherToken), html: link(otherToken) }),
      newMail({ userId: mia.id }),
      newMail({ userId: noah.id }),
    );
    await voidMailTokens(db(), [1]);
    expect(await w.mail(invited!)).toMatchObject({
      state: 'expired',
      text_body: 'https://demo.example.org/#invitation=[removed]\n',
      html_body: '<a href="https://demo.example.org/#invitation=[removed]">https://demo.example.org/#invitation=[removed]</a>',
    });
    expect(await w.mail(other!)).toMatchObject({ state: 'held', text_body: link(otherToken) });

    const now = toDbTimestamp(new Date());
    await db()
      .insertInto('email_status')
      .values([
        { user_id: mia.id, email: 'MIA@example.com', refusals: 3, last_error: '550', since: now, updated_at: now },
        { user_id: noah.id, email: 'noah.old@example.com', refusals: 5, last_error: '550', since: now, updated_at: now },
      ])
      .execute();
    const failing = await failingAddressesOf(db(), [
      { userId: mia.id, email: 'mia@example.com' },
      { userId: noah.id, email: 'noah@example.com' },
    ]);
    expect([...failing]).toEqual([mia.id]);

    await forgetMailOf(db(), mia.id);
    const left = await db().selectFrom('mails').select('id').orderBy('id').execute();
    expect(left.map((row) => Number(row.id))).toEqual([other, toNoah]);
    expect(toMia).toBeDefined();
    expect(await db().selectFrom('email_status').select('user_id').execute()).toEqual([{ user_id: expect.anything() }]);
  });
});

