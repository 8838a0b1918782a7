/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { addIdColumn, isPostgres } from '../dialect.js';

/**
 * Mail (modules/mail).
 *
 * `mails` is the outbox: a mail is written in the transaction of the change that causes it and sent
 * by the worker of some instance. `state`: held (no SMTP_URL), queued, sent, failed, expired.
 * `message_id_header` is the stable Message-ID of every attempt. `lease_holder`/`lease_until` (ms):
 * the instance sending it and until when; `next_attempt_at` (ms) holds a retry back.
 * `account_token_id`: the reset or invitation token whose link the body carries (removed from the
 * stored copy once sent, expired or voided). `message_id`: the leader's message it belongs to.
 *
 * `account_tokens`: password resets and invitations, the secret as its sha256 (hex), with the
 * address it went to (a later change of the person's e-mail makes it unknown).
 *
 * `email_status`: permanent refusals of a person's address; reset when the address changes.
 *
 * `messages` and `message_recipients`: what a leader wrote, and to whom, each address once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';
  await addIdColumn(db, db.schema.createTable('account_tokens'))
    .addColumn('kind', 'varchar(16)', (col) => col.notNull())
    .addColumn('user_id', bigint, (col) => col.notNull())
    .addColumn('token', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('email', 'varchar(255)', (col) => col.notNull())
    .addColumn('inviter_id', bigint)
    .addColumn('expires_at', 'timestamp', (col) => col.notNull())
    .addColumn('used_at', 'timestamp')
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('account_tokens_user').on('account_tokens').columns(['user_id', 'kind']).execute();

  await addIdColumn(db, db.schema.createTable('messages'))
    .addColumn('sender_id', bigint)
    .addColumn('subject', 'varchar(255)', (col) => col.notNull())
    .addColumn('body', 'text', (col) => col.notNull())
    .addColumn('target', 'text', (col) => col.notNull())
    .addColumn('group_id', bigint)
    .addColumn('event_id', bigint)
    .addColumn('recipient_count', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('messages_sender').on('messages').columns(['sender_id', 'id']).execute();
  await db.schema.createIndex('messages_group').on('messages').columns(['group_id', 'id']).execute();
  await db.schema.createIndex('messages_event').on('messages').columns(['event_id', 'id']).execute();
  await db.schema.createIndex('messages_created').on('messages').columns(['created_at']).execute();

  await addIdColumn(db, db.schema.createTable('mails'))
    .addColumn('kind', 'varchar(32)', (col) => col.notNull())
    .addColumn('user_id', bigint)
    .addColumn('to_address', 'varchar(255)', (col) => col.notNull())
    .addColumn('to_name', 'varchar(255)', (col) => col.notNull())
    .addColumn('from_name', 'varchar(255)', (col) => col.notNull())
    .addColumn('reply_to', 'varchar(255)')
    .addColumn('subject', 'varchar(400)', (col) => col.notNull())
    .addColumn('text_body', 'text', (col) => col.notNull())
    .addColumn('html_body', 'text', (col) => col.notNull())
    .addColumn('message_id_header', 'varchar(255)', (col) => col.notNull())
    .addColumn('state', 'varchar(16)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', bigint)
    .addColumn('lease_holder', 'varchar(64)')
    .addColumn('lease_until', bigint)
    .addColumn('error', 'varchar(255)')
    .addColumn('account_token_id', bigint)
    .addColumn('message_id', bigint, (col) => col.references('messages.id').onDelete('set null'))
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('sent_at', 'timestamp')
    .execute();
  await db.schema.createIndex('mails_due').on('mails').columns(['state', 'next_attempt_at', 'id']).execute();
  await db.schema.createIndex('mails_user').on('mails').columns(['user_id']).execute();
  await db.schema.createIndex('mails_message').on('mails').columns(['message_id']).execute();
  await db.schema.createIndex('mails_account_token').on('mails').columns(['account_token_id']).execute();
  await db.schema.createIndex('mails_created').on('mails').columns(['created_at']).execute();

  await addIdColumn(db, db.schema.createTable('message_recipients'))
    .addColumn('message_id', bigint, (col) => col.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('person_id', bigint)
    .addColumn('name', 'varchar(511)', (col) => col.notNull())
    .addColumn('name_key', 'varchar(1100)', (col) => col.notNull())
    .addColumn('email', 'varchar(255)')
    .addColumn('state', 'varchar(16)', (col) => col.notNull())
    .addColumn('error', 'varchar(255)')
    .addColumn('mail_id', bigint)
    .execute();
  await db.schema.createIndex('message_recipients_order').on('message_recipients').columns(['message_id', 'name_key', 'id']).execute();
  await db.schema.createIndex('message_recipients_mail').on('message_recipients').columns(['mail_id']).execute();
  await db.schema.createIndex('message_recipients_person').on('message_recipients').columns(['person_id']).execute();

  await db.schema
    .createTable('email_status')
    .addColumn('user_id', bigint, (col) => col.primaryKey())
    .addColumn('email', 'varchar(255)', (col) => col.notNull())
    .addColumn('refusals', 'integer', (col) => col.notNull())
    .addColumn('last_error', 'varchar(255)')
    .addColumn('since', 'timestamp')
    .addColumn('updated_at', 'timestamp', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('email_status').execute();
  await db.schema.dropTable('message_recipients').execute();
  await db.schema.dropTable('mails').execute();
  await db.schema.dropTable('messages').execute();
  await db.schema.dropTable('account_tokens').execute();
}
