/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { addIdColumn, isPostgres } from '../dialect.js';

/**
 * Webhooks. The change records are the outbox: a webhook keeps only
 * `position`, the seq of the last record it has delivered (or skipped as not for it), so a message
 * is never lost between a commit and its delivery. `secret` is kept as it is because it signs every
 * message (a hash could not).
 *
 * `lease_holder` / `lease_until` (ms since the epoch): the instance sending this webhook's next message
 * and until when; another instance takes over only after that. `failures` counts the failed attempts
 * at the message after `position`, and `next_attempt_at` (ms) holds it back until its retry is due.
 *
 * `version` (the ETag) changes with what the API shows: a PATCH, or the worker disabling it.
 *
 * `webhook_deliveries` is the log of the last attempts (trimmed per webhook as it grows).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';
  await addIdColumn(db, db.schema.createTable('webhooks'))
    .addColumn('url', 'varchar(2048)', (col) => col.notNull())
    .addColumn('entities', 'text')
    .addColumn('description', 'text')
    .addColumn('enabled', 'boolean', (col) => col.notNull())
    .addColumn('disabled_reason', 'varchar(32)')
    .addColumn('secret', 'varchar(100)', (col) => col.notNull())
    .addColumn('message_prefix', 'varchar(32)', (col) => col.notNull())
    .addColumn('position', bigint, (col) => col.notNull())
    .addColumn('failures', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', bigint)
    .addColumn('lease_holder', 'varchar(64)')
    .addColumn('lease_until', bigint)
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('updated_at', 'timestamp', (col) => col.notNull())
    .execute();

  await addIdColumn(db, db.schema.createTable('webhook_deliveries'))
    .addColumn('webhook_id', bigint, (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('message_id', 'varchar(100)', (col) => col.notNull())
    .addColumn('type', 'varchar(64)', (col) => col.notNull())
    .addColumn('seq', bigint)
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addColumn('error', 'varchar(255)')
    .addColumn('next_retry_at', 'timestamp')
    .addColumn('at', 'timestamp', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_webhook_id').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
