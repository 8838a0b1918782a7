import nodemailer from 'nodemailer';
import type { MailConfig } from '../../config.js';
import type { MailRow } from './queries.js';
import { withoutTokens } from './rules.js';

/** SMTP connections one instance keeps open at most (nodemailer's pool); further sends wait for one. */
export const SMTP_CONNECTIONS = 5;

/**
 * Defaults for what the operator's SMTP_URL does not set (`?socketTimeout=...` and the like are
 * nodemailer's options): a server that hangs gives a mail back to the retry schedule within
 * about two minutes, well inside its lease.
 */
const DEFAULT_OPTIONS: Record<string, string> = {
  pool: 'true',
  maxConnections: String(SMTP_CONNECTIONS),
  connectionTimeout: '30000',
  greetingTimeout: '30000',
  socketTimeout: '60000',
};

export interface MailTransport {
  send(mail: MailRow): Promise<void>;
  close(): void;
}

/**
 * One pooled nodemailer transport for SMTP_URL: smtp:// upgrades with STARTTLS whenever the
 * server offers it (nodemailer's default), smtps:// speaks TLS from the start.
 */
export function createMailTransport(config: MailConfig): MailTransport {
  const url = new URL(config.smtpUrl!);
  for (const [name, value] of Object.entries(DEFAULT_OPTIONS)) if (!url.searchParams.has(name)) url.searchParams.set(name, value);
  const transporter = nodemailer.createTransport(url.toString());
  return {
    async send(mail) {
      await transporter.sendMail({
        // Always MAIL_FROM's address, with the sender's or the tenant's name: a receiver that
        // checks DMARC rejects a From of someone else's domain. nodemailer encodes the name (RFC 2047).
        from: { name: mail.from_name, address: config.from.address },
        to: { name: mail.to_name, address: mail.to_address },
        ...(mail.reply_to ? { replyTo: mail.reply_to } : {}),
        subject: mail.subject,
        text: mail.text_body,
        html: mail.html_body,
        // The same on every attempt: a receiver drops the repeat of a mail sent again after a crash.
        messageId: mail.message_id_header,
        // What the service sends on its own asks auto-responders to stay quiet (RFC 3834).
        ...(isAutomatic(mail.kind) ? { headers: { 'Auto-Submitted': 'auto-generated' } } : {}),
      });
    },
    close: () => transporter.close(),
  };
}

const isAutomatic = (kind: string) => kind !== 'message' && kind !== 'message_copy';

/**
 * What a failed attempt means: `refused` (the server refused the recipient for good: fail now and
 * count it against the address), `rejected` (refused for good for another reason: fail now), or
 * `retry` (4xx, a lost connection, or a 5xx to the login or the sender, which the operator fixes).
 */
export type FailureKind = 'refused' | 'rejected' | 'retry';

export interface Failure {
  kind: FailureKind;
  /** Bounded to 255 characters, without secrets. */
  error: string;
}

export function classifyFailure(err: unknown, config: MailConfig): Failure {
  const failure = err as { responseCode?: unknown; command?: unknown; response?: unknown; message?: unknown; code?: unknown };
  const code = typeof failure.responseCode === 'number' ? failure.responseCode : null;
  const command = typeof failure.command === 'string' ? failure.command : '';
  const text = typeof failure.response === 'string' ? failure.response : String(failure.message ?? err);
  const error = boundedError(text, config);
  if (code === null || code < 500 || code > 599) return { kind: 'retry', error };
  if (command === 'RCPT TO') return { kind: 'refused', error };
  if (command === 'MAIL FROM' || command.startsWith('AUTH') || failure.code === 'EAUTH') return { kind: 'retry', error };
  return { kind: 'rejected', error };
}

/** An error for the outbox and the recipient list: one line, without SMTP_URL's password or a token. */
function boundedError(text: string, config: MailConfig): string {
  let clean = withoutTokens(text.replace(/\s+/g, ' ').trim());
  const password = config.smtpUrl ? decodeURIComponent(new URL(config.smtpUrl).password) : '';
  if (password !== '') clean = clean.replaceAll(password, '[removed]');
  return clean.slice(0, 255) || 'The mail could not be sent.';
}
