/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

/** Each tenant's language (`de`, `en`, `fr`): the language of the mails the service writes for it. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tenants')
    .addColumn('locale', 'varchar(8)', (col) => col.notNull().defaultTo('en'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tenants').dropColumn('locale').execute();
}
