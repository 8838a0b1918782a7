/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { addIdColumn } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  await addIdColumn(db, db.schema.createTable('tenants'))
    .addColumn('slug', 'varchar(63)', (col) => col.notNull().unique())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tenants').execute();
}
