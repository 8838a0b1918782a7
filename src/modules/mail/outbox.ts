import { randomUUID } from 'node:crypto';
import type { TenantDb } from '../../db/types.js';
import { toDbTimestamp } from '../../lib/time.js';
import type { MailHub } from './settings.js';

/** One mail as its sender composes it; the outbox adds the state, the Message-ID and the times. */
export interface NewMail {
  /** 'reset', 'invitation', 'email_changed', 'participation', 'message', 'message_copy'. */
  kind: string;
  /** The person it goes to (null for none). */
  userId: number | null;
  to: { address: string; name: string };
  /** The name shown beside MAIL_FROM's address: "Lena Berg via Pfadi Olten", or the tenant's name. */
  fromName: string;
  replyTo?: string | null;
  subject: string;
  text: string;
  html: string;
  /** The reset or invitation token whose link the body carries. */
  accountTokenId?: number | null;
  /** The leader's message it belongs to. */
  messageId?: number | null;
}

/**
 * Writes mail to the outbox. Call it inside the transaction of the change that causes the mail, so
 * that the change and its mail commit together; after the commit, call hub.wake(tenant) so this
 * instance sends it at once. Held (no SMTP_URL) mail waits for `groupadmin mail list`.
 * Returns the ids, in the given order.
 */
export async function queueMails(db: TenantDb, hub: MailHub, mails: readonly NewMail[], now = new Date()): Promise<number[]> {
  if (mails.length === 0) return [];
  const createdAt = toDbTimestamp(now);
  const domain = hub.config.from.address.split('@')[1] ?? 'localhost';
  const rows = mails.map((mail) => ({
    kind: mail.kind,
    user_id: mail.userId,
    to_address: mail.to.address,
    to_name: mail.to.name,
    from_name: mail.fromName,
    reply_to: mail.replyTo ?? null,
    subject: mail.subject,
    text_body: mail.text,
    html_body: mail.html,
    // The same on every attempt: a receiver drops a repeat sent after a crash.
    message_id_header: `<${randomUUID()}@${domain}>`,
    state: hub.held ? ('held' as const) : ('queued' as const),
    next_attempt_at: now.getTime(),
    account_token_id: mail.accountTokenId ?? null,
    message_id: mail.messageId ?? null,
    created_at: createdAt,
  }));
  const ids: number[] = [];
  // Bounded statements: a message to thousands goes in chunks.
  for (let start = 0; start < rows.length; start += 500) {
    const inserted = await db.insertInto('mails').values(rows.slice(start, start + 500)).returning('id').execute();
    ids.push(...inserted.map((row) => Number(row.id)));
  }
  return ids;
}

export const queueMail = async (db: TenantDb, hub: MailHub, mail: NewMail, now = new Date()): Promise<number> =>
  (await queueMails(db, hub, [mail], now))[0]!;
