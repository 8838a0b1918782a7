import type { LightMyRequestResponse } from 'fastify';
import { queueMails, type NewMail } from '../../../src/modules/mail/outbox.js';
import type { MailRow } from '../../../src/modules/mail/queries.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';
import { startTestMailWorker, type TestMailWorker } from '../../helpers/mail-worker.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

/** A reset link as the accounts module writes it: 43 base64url characters after `#reset=`. */
export const RESET_TOKEN = 'Ab3_-x'.padEnd(43, 'k');

export const newMail = (fields: Partial<NewMail> = {}): NewMail => ({
  kind: 'participation',
  userId: null,
  to: { address: 'mia@example.com', name: 'Mia Muster' },
  fromName: 'Pfadi Olten',
  subject: 'Your registration',
  text: 'Hello Mia\n\nYou are registered.\n',
  html: '<p>Hello Mia</p><p>You are registered.</p>',
  ...fields,
});

export interface MailWorld {
  t: TestApp;
  sink: SmtpSink;
  /** The admin's token (admin on the root). */
  admin: string;
  /** Commits mail to the outbox of "demo" and wakes the worker, as a route does. */
  queue(...mails: NewMail[]): Promise<number[]>;
  mail(id: number): Promise<MailRow>;
  call(method: 'GET' | 'DELETE', url: string, token?: string): Promise<LightMyRequestResponse>;
  startWorker(options?: Parameters<typeof startTestMailWorker>[1]): TestMailWorker;
  close(): Promise<void>;
}

/** A test app that sends through a real SMTP sink (unless `held`), with an administrator. */
export async function buildMailWorld(env: Record<string, string> = {}, options: { held?: boolean } = {}): Promise<MailWorld> {
  const sink = await startSmtpSink();
  const t = await buildTestApp({
    ...(options.held ? {} : { SMTP_URL: sink.url }),
    MAIL_FROM: 'Groupadmin <no-reply@mail.example.org>',
    ...env,
  });
  const admin = await t.addUser('demo', { username: 'admin', firstname: 'Ada', lastname: 'Admin' });
  await t.grant('demo', admin.id, await t.rootGroupId('demo'), 'admin');
  const adminToken = await t.login('demo', 'admin', PASSWORD);
  const db = t.storage.tenantDb('demo');
  return {
    t,
    sink,
    admin: adminToken,
    async queue(...mails) {
      const ids = await db.transaction().execute((trx) => queueMails(trx, t.app.mailHub, mails));
      t.app.mailHub.wake('demo');
      return ids;
    },
    mail: async (id) => normalised(await db.selectFrom('mails').selectAll().where('id', '=', id).executeTakeFirstOrThrow()),
    call: (method, url, token = adminToken) =>
      t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` } }),
    startWorker: (workerOptions) => startTestMailWorker(t, workerOptions),
    async close() {
      await t.close();
      await sink.close();
    },
  };
}

/** Numbers as numbers on either dialect (PostgreSQL gives bigints as text). */
const normalised = (row: MailRow): MailRow => ({
  ...row,
  id: Number(row.id),
  attempts: Number(row.attempts),
  next_attempt_at: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
  lease_until: row.lease_until === null ? null : Number(row.lease_until),
  user_id: row.user_id === null ? null : Number(row.user_id),
  message_id: row.message_id === null ? null : Number(row.message_id),
  account_token_id: row.account_token_id === null ? null : Number(row.account_token_id),
});
