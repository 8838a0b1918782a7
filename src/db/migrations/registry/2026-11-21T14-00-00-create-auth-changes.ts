/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { addIdColumn } from '../dialect.js';

/**
 * A feed of changes to users and tokens (revocations, password changes, deactivations, profile
 * edits). Every instance reads it a few times a second, so what it remembers about tokens can be
 * kept until a change says otherwise. Rows are pruned after a few minutes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await addIdColumn(db, db.schema.createTable('auth_changes'))
    .addColumn('tenant', 'varchar(63)', (col) => col.notNull())
    .addColumn('user_id', 'bigint')
    .addColumn('token_id', 'bigint')
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('auth_changes').execute();
}
