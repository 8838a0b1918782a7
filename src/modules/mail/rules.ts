import type { TenantDb, UserRow } from '../../db/types.js';
import { lowerAscii } from '../../lib/validation.js';
import { toApiTimestampOrNull } from '../../lib/time.js';
import type { MailState } from '../../db/types.js';
import {
  deleteEmailStatus,
  deleteUnsentMailOf,
  emailStatusRows,
  findMail,
  listMailRows,
  mailsCarryingTokens,
  releaseMail,
  storeWithoutToken,
  type EmailStatusRow,
  type MailRow,
} from './queries.js';

/** Permanent refusals of one address after which no more mail goes to it. */
export const REFUSALS_UNTIL_FAILING = 3;

/** The error of a mail that was not sent because its address failed before. */
export const REFUSED_BEFORE = 'The e-mail address was refused before.';

/**
 * How long reset and invitation links live (the accounts module's tokens): once a mail's token
 * has run out, its stored copy loses the link even if the mail was never sent.
 */
export const TOKEN_LIFETIME_MS: Readonly<Record<'reset' | 'invitation', number>> = { reset: 60 * 60_000, invitation: 7 * 24 * 3_600_000 };

// A reset or invitation link's token: 32 random bytes as base64url without padding.
const TOKEN_LINK = /#(reset|invitation)=[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;

/** The stored copy of a mail without its live secret: `#reset=[removed]`. */
export const withoutTokens = (body: string): string => body.replace(TOKEN_LINK, '#$1=[removed]');

/** Whether the body still carries a token link. */
export const carriesToken = (body: string): boolean => new RegExp(TOKEN_LINK.source).test(body);

const sameAddress = (a: string, b: string) => lowerAscii(a) === lowerAscii(b);

/**
 * Of these people, those whose given (current) address is failing: refused permanently three times.
 * Read in one statement per 500 people. Who sends a message marks them failed instead of mailing them.
 */
export async function failingAddressesOf(db: TenantDb, people: readonly { userId: number; email: string }[]): Promise<Set<number>> {
  const failing = new Set<number>();
  const wanted = new Map(people.map((person) => [person.userId, person.email]));
  const ids = [...wanted.keys()];
  for (let start = 0; start < ids.length; start += 500) {
    for (const row of await emailStatusRows(db, ids.slice(start, start + 500))) {
      const email = wanted.get(Number(row.user_id));
      if (email !== undefined && isFailing(row, email)) failing.add(Number(row.user_id));
    }
  }
  return failing;
}

/** The one rule of a failing address: enough refusals, made on the address the person has now. */
export const isFailing = (row: Pick<EmailStatusRow, 'email' | 'refusals'>, email: string): boolean =>
  Number(row.refusals) >= REFUSALS_UNTIL_FAILING && sameAddress(row.email, email);

/**
 * Voided (or used) reset and invitation tokens: the stored copies of their mails lose the link,
 * and those not sent yet are never sent (expired). Call it in the transaction that voids them.
 */
export async function voidMailTokens(db: TenantDb, accountTokenIds: readonly number[]): Promise<void> {
  for (let start = 0; start < accountTokenIds.length; start += 500) {
    for (const mail of await mailsCarryingTokens(db, accountTokenIds.slice(start, start + 500))) {
      await storeWithoutToken(db, mail, withoutTokens(mail.text_body), withoutTokens(mail.html_body));
    }
  }
}

/** Erasure: the mail not yet sent to the person, and their mail status. */
export async function forgetMailOf(db: TenantDb, userId: number): Promise<void> {
  await deleteUnsentMailOf(db, userId);
  await deleteEmailStatus(db, userId);
}

export interface EmailStatus {
  state: 'ok' | 'failing';
  refusals: number;
  last_error: string | null;
  since: string | null;
}

/** The mail status of P's current address: refusals of another (earlier) address do not count. */
export async function emailStatusOf(db: TenantDb, person: Pick<UserRow, 'id' | 'email'>): Promise<EmailStatus> {
  const [row] = await emailStatusRows(db, [Number(person.id)]);
  if (!row || person.email === null || !sameAddress(row.email, person.email)) return { state: 'ok', refusals: 0, last_error: null, since: null };
  return {
    state: isFailing(row, person.email) ? 'failing' : 'ok',
    refusals: row.refusals,
    last_error: row.last_error,
    since: toApiTimestampOrNull(row.since),
  };
}

/** Back to ok: the next mail to the address is sent again. */
export const resetEmailStatus = (db: TenantDb, userId: number): Promise<void> => deleteEmailStatus(db, userId);

/** The outbox by id, a page at a time (the command line prints it). */
export async function* listOutbox(db: TenantDb, state: MailState | null): AsyncGenerator<Pick<MailRow, 'id' | 'state' | 'created_at' | 'to_address' | 'subject'>> {
  for (let after = 0; ; ) {
    const page = await listMailRows(db, state, after, 500);
    yield* page;
    if (page.length < 500) return;
    after = Number(page[page.length - 1]!.id);
  }
}

export const readOutboxMail = (db: TenantDb, id: number): Promise<MailRow | undefined> => findMail(db, id);

/**
 * The operator's release: held and expired mail created since `createdSince` (null: all) is queued
 * again, except mail whose link was removed. Returns how many; the workers send them at their next look.
 */
export const releaseHeldMail = (db: TenantDb, createdSince: string | null): Promise<number> => releaseMail(db, createdSince, Date.now());
