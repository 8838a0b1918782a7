import { buildTestApp, hostOf, type TestApp } from '../../helpers/app.js';
import { startTestMailWorker, type TestMailWorker } from '../../helpers/mail-worker.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { toApiTimestamp, toDbTimestamp } from '../../../src/lib/time.js';
import type { Method } from '../../helpers/cookie-browser.js';

export { CookieBrowser as Browser, CSRF, setCookies, type Method } from '../../helpers/cookie-browser.js';

export const PUBLIC_URL = 'https://{tenant}.app.example.org';

/** A test app that sends its mail through a real SMTP server on 127.0.0.1, with the mail worker running. */
export interface MailingApp {
  t: TestApp;
  sink: SmtpSink;
  worker: TestMailWorker;
  close(): Promise<void>;
}

export async function buildMailingApp(env: Record<string, string> = {}): Promise<MailingApp> {
  const sink = await startSmtpSink();
  const t = await buildTestApp({ SMTP_URL: sink.url, PUBLIC_URL, ...env });
  const worker = startTestMailWorker(t);
  return {
    t,
    sink,
    worker,
    close: async () => {
      await t.close();
      await sink.close();
    },
  };
}

/** An API client with a bearer token (or none). */
export function client(t: TestApp, token?: string, tenant = 'demo') {
  return (method: Method, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method,
      url: `/api${url}`,
      headers: {
        host: hostOf(tenant),
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
}

/** The token of a `#reset=` or `#invitation=` link in a received mail (its text part). */
export function linkToken(mail: ReceivedMail, kind: 'reset' | 'invitation'): string {
  const match = new RegExp(`#${kind}=([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])`).exec(String(mail.parsed.text));
  if (!match) throw new Error(`no ${kind} link in: ${mail.parsed.text}`);
  return match[1]!;
}

/** Waits until `address` has received `count` mails, and gives the last. */
export async function nthMailTo(sink: SmtpSink, address: string, count: number): Promise<ReceivedMail> {
  await waitFor(() => sink.to(address).length >= count, 10_000, 20);
  const mails = sink.to(address);
  return mails[mails.length - 1]!;
}

/** The rows of the outbox for a person. */
export const mailRowsOf = (t: TestApp, userId: number, tenant = 'demo') =>
  t.storage.tenantDb(tenant).selectFrom('mails').selectAll().where('user_id', '=', userId).orderBy('id').execute();

export const tokenRowsOf = (t: TestApp, userId: number, tenant = 'demo') =>
  t.storage.tenantDb(tenant).selectFrom('account_tokens').selectAll().where('user_id', '=', userId).orderBy('id').execute();

/** Moves every account token (and its mails) of the person back in time by `ms`. */
export async function ageAccountTokens(t: TestApp, userId: number, ms: number, tenant = 'demo'): Promise<void> {
  const db = t.storage.tenantDb(tenant);
  for (const row of await tokenRowsOf(t, userId, tenant)) {
    const back = (value: string) => toDbTimestamp(new Date(Date.parse(toApiTimestamp(value)) - ms));
    await db.updateTable('account_tokens').set({ created_at: back(row.created_at), expires_at: back(row.expires_at) }).where('id', '=', row.id).execute();
  }
}
