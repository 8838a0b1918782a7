/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * The people lists' full name order (sort keys, then the names byte by byte, then id) as one
 * index, so a page of a large group's members is read by walking it from the cursor instead of
 * sorting the whole subtree on every page (issue 20). It replaces `users_name_order`, whose
 * columns are its first and last.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const binary = (column: string) => (isPostgres(db) ? sql.raw(`${column} collate "C"`) : sql.raw(column));
  await db.schema
    .createIndex('users_list_order')
    .on('users')
    .expression(sql`lastname_key, firstname_key, ${binary('lastname')}, ${binary('firstname')}, id`)
    .execute();
  await db.schema.dropIndex('users_name_order').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_name_order').on('users').columns(['lastname_key', 'firstname_key', 'id']).execute();
  await db.schema.dropIndex('users_list_order').execute();
}
