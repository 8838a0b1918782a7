/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

/**
 * The tenants that have had a webhook: the delivery worker looks for due messages in these only,
 * not in every tenant's database.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_tenants')
    .addColumn('slug', 'varchar(63)', (col) => col.primaryKey())
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_tenants').execute();
}
