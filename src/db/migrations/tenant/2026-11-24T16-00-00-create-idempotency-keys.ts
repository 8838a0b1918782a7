/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * Idempotency keys: the first answer to a POST that carried one, per
 * token owner, kept 24 hours. A row without `status_code` is a request still running; its
 * `running_until` lets another request take over a key whose process died before answering.
 * Erasing the owner erases their keys and the answers stored with them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('owner_id', bigint, (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'varchar(255)', (col) => col.notNull())
    .addColumn('fingerprint', 'varchar(64)', (col) => col.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('headers', 'text')
    .addColumn('body', 'text')
    .addColumn('running_until', 'timestamp')
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['owner_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
