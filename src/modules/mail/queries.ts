import type { Selectable } from 'kysely';
import { onPostgres } from '../../db/dialect.js';
import type { EmailStatusTable, MailState, MailsTable, TenantDb } from '../../db/types.js';

export type MailRow = Selectable<MailsTable>;
export type EmailStatusRow = Selectable<EmailStatusTable>;

/** What a mail's delivery changes, written only while its lease holder still holds it. */
export interface DeliveryOutcome {
  state: MailState;
  attempts: number;
  next_attempt_at: number | null;
  error: string | null;
  sent_at: string | null;
  text_body?: string;
  html_body?: string;
  account_token_id?: null;
}

/**
 * Takes up to `limit` due mails of the tenant for `holder` until `until`: one conditional UPDATE,
 * so of two instances that reach for the same rows each row goes to exactly one (PostgreSQL
 * re-checks the condition on a row the other committed, and skips rows locked meanwhile; SQLite
 * runs the statement under its write lock).
 */
export function takeDueMails(db: TenantDb, holder: string, now: number, until: number, limit: number): Promise<MailRow[]> {
  return db
    .updateTable('mails')
    .set({ lease_holder: holder, lease_until: until })
    .where('id', 'in', (eb) => {
      let due = eb
        .selectFrom('mails')
        .select('id')
        .where('state', '=', 'queued')
        .where((inner) => inner.or([inner('next_attempt_at', 'is', null), inner('next_attempt_at', '<=', now)]))
        .where((inner) => inner.or([inner('lease_until', 'is', null), inner('lease_until', '<', now)]))
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(limit);
      if (onPostgres(db)) due = due.forUpdate().skipLocked();
      return due;
    })
    .where('state', '=', 'queued')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returningAll()
    .execute();
}

/** Records an attempt's outcome and gives the lease back; false when the lease was lost meanwhile. */
export async function recordOutcome(db: TenantDb, id: number, holder: string, outcome: DeliveryOutcome): Promise<boolean> {
  const result = await db
    .updateTable('mails')
    .set({ ...outcome, lease_holder: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_holder', '=', holder)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The line of a leader's message that stands for this mail follows it. */
export async function updateRecipientOfMail(db: TenantDb, mailId: number, state: 'sent' | 'failed', error: string | null): Promise<void> {
  await db.updateTable('message_recipients').set({ state, error }).where('mail_id', '=', mailId).execute();
}

/**
 * When the worker should look at the tenant again: the next retry (in the past when mail came due
 * while it was sending), or the end of a lease that another instance holds (it may have died).
 * Null when no queued mail waits.
 */
export async function nextLookAt(db: TenantDb, now: number): Promise<number | null> {
  const [retry, lease] = await Promise.all([
    db
      .selectFrom('mails')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('state', '=', 'queued')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .executeTakeFirst(),
    db
      .selectFrom('mails')
      .select((eb) => eb.fn.min('lease_until').as('at'))
      .where('state', '=', 'queued')
      .where('lease_until', '>=', now)
      .executeTakeFirst(),
  ]);
  const times: number[] = [];
  if (retry?.at !== null && retry?.at !== undefined) times.push(Number(retry.at));
  if (lease?.at !== null && lease?.at !== undefined) times.push(Number(lease.at) + 1);
  return times.length === 0 ? null : Math.min(...times);
}

/** Held mail since `createdSince` becomes queued (SMTP_URL is set now). Returns how many. */
export async function queueHeldSince(db: TenantDb, createdSince: string, now: number): Promise<number> {
  const result = await db
    .updateTable('mails')
    .set({ state: 'queued', next_attempt_at: now })
    .where('state', '=', 'held')
    .where('created_at', '>=', createdSince)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Held mail created before `createdBefore` is never sent by itself. */
export async function expireHeldBefore(db: TenantDb, createdBefore: string): Promise<number> {
  const result = await db.updateTable('mails').set({ state: 'expired' }).where('state', '=', 'held').where('created_at', '<', createdBefore).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The mails whose link carries one of these tokens and is still in the stored copy. */
export function mailsCarryingTokens(db: TenantDb, accountTokenIds: readonly number[]): Promise<Pick<MailRow, 'id' | 'state' | 'text_body' | 'html_body'>[]> {
  return db
    .selectFrom('mails')
    .select(['id', 'state', 'text_body', 'html_body'])
    .where('account_token_id', 'in', [...accountTokenIds])
    .execute();
}

/** Token mails of `kind` created before `createdBefore` whose link is still in the stored copy. */
export function tokenMailsCreatedBefore(db: TenantDb, kind: string, createdBefore: string, limit: number): Promise<Pick<MailRow, 'id' | 'state' | 'text_body' | 'html_body'>[]> {
  return db
    .selectFrom('mails')
    .select(['id', 'state', 'text_body', 'html_body'])
    .where('account_token_id', 'is not', null)
    .where('kind', '=', kind)
    .where('created_at', '<', createdBefore)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Writes the stored copy without its token link; unsent mail with a dead link is never sent. */
export async function storeWithoutToken(db: TenantDb, mail: Pick<MailRow, 'id' | 'state'>, text: string, html: string): Promise<void> {
  const unsent = mail.state === 'held' || mail.state === 'queued';
  await db
    .updateTable('mails')
    .set({ text_body: text, html_body: html, account_token_id: null, ...(unsent ? { state: 'expired' as const, lease_holder: null, lease_until: null } : {}) })
    .where('id', '=', Number(mail.id))
    .execute();
}

/** Deletes, a bounded batch at a time, sent mail older than the cut-off and mail that will never go out. */
export async function deleteOldMail(db: TenantDb, before: string, batch = 1000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await db
      .deleteFrom('mails')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('mails')
          .select('id')
          .where('created_at', '<', before)
          .where((inner) =>
            inner.or([
              inner.and([inner('state', '=', 'sent'), inner('sent_at', '<', before)]),
              inner('state', 'in', ['failed', 'expired']),
            ]),
          )
          .limit(batch),
      )
      .executeTakeFirst();
    const count = Number(result.numDeletedRows);
    deleted += count;
    if (count < batch) return deleted;
  }
}

export function findMail(db: TenantDb, id: number): Promise<MailRow | undefined> {
  return db.selectFrom('mails').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A page of the outbox by id, for the command line. */
export function listMailRows(db: TenantDb, state: MailState | null, afterId: number, limit: number): Promise<Pick<MailRow, 'id' | 'state' | 'created_at' | 'to_address' | 'subject'>[]> {
  let query = db.selectFrom('mails').select(['id', 'state', 'created_at', 'to_address', 'subject']).where('id', '>', afterId).orderBy('id').limit(limit);
  if (state !== null) query = query.where('state', '=', state);
  return query.execute();
}

/**
 * Held and expired mail since `createdSince` (null: all) goes back to the queue, except mail whose
 * token link was removed (it would carry a dead link).
 */
export async function releaseMail(db: TenantDb, createdSince: string | null, now: number): Promise<number> {
  let query = db
    .updateTable('mails')
    .set({ state: 'queued', next_attempt_at: now, attempts: 0, error: null, lease_holder: null, lease_until: null })
    .where('state', 'in', ['held', 'expired'])
    .where('text_body', 'not like', '%#reset=[removed]%')
    .where('text_body', 'not like', '%#invitation=[removed]%');
  if (createdSince !== null) query = query.where('created_at', '>=', createdSince);
  return Number((await query.executeTakeFirst()).numUpdatedRows);
}

/** Mail not yet sent to the person goes (erasure); sent mail leaves with its retention. */
export async function deleteUnsentMailOf(db: TenantDb, userId: number): Promise<void> {
  await db.deleteFrom('mails').where('user_id', '=', userId).where('state', '!=', 'sent').execute();
}

export function emailStatusRows(db: TenantDb, userIds: readonly number[]): Promise<EmailStatusRow[]> {
  return db.selectFrom('email_status').selectAll().where('user_id', 'in', [...userIds]).execute();
}

export async function deleteEmailStatus(db: TenantDb, userId: number): Promise<void> {
  await db.deleteFrom('email_status').where('user_id', '=', userId).execute();
}

/**
 * One more permanent refusal of `email` for the person, in one statement (two instances may count
 * at once): another address than the row's starts again at one; the third marks it failing.
 */
export async function countRefusal(db: TenantDb, userId: number, email: string, error: string, now: string, failingAfter: number): Promise<void> {
  await db
    .insertInto('email_status')
    .values({ user_id: userId, email, refusals: 1, last_error: error, since: failingAfter <= 1 ? now : null, updated_at: now })
    .onConflict((conflict) =>
      conflict.column('user_id').doUpdateSet((eb) => {
        const sameAddress = eb(eb.fn('lower', [eb.ref('email_status.email')]), '=', eb.fn('lower', [eb.ref('excluded.email')]));
        const refusals = eb.case().when(sameAddress).then(eb(eb.ref('email_status.refusals'), '+', 1)).else(1).end();
        return {
          email: eb.ref('excluded.email'),
          refusals,
          last_error: eb.ref('excluded.last_error'),
          since: eb
            .case()
            .when(eb.and([sameAddress, eb(eb.ref('email_status.since'), 'is not', null)]))
            .then(eb.ref('email_status.since'))
            .when(eb.and([sameAddress, eb(eb.ref('email_status.refusals'), '>=', failingAfter - 1)]))
            .then(eb.ref('excluded.updated_at'))
            .else(null)
            .end(),
          updated_at: eb.ref('excluded.updated_at'),
        };
      }),
    )
    .execute();
}
