/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

/** Each tenant's time zone (IANA name): "today" for memberships and events is a date there. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tenants')
    .addColumn('timezone', 'varchar(64)', (col) => col.notNull().defaultTo('UTC'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tenants').dropColumn('timezone').execute();
}
