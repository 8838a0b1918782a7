/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely } from 'kysely';
import { addIdColumn, isPostgres, lowerAsciiSql } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';

  await addIdColumn(db, db.schema.createTable('users'))
    .addColumn('username', 'varchar(255)', (col) => col.notNull())
    .addColumn('email', 'varchar(255)', (col) => col.notNull())
    .addColumn('firstname', 'varchar(255)', (col) => col.notNull())
    .addColumn('lastname', 'varchar(255)', (col) => col.notNull())
    .addColumn('gender_id', 'integer')
    .addColumn('type_id', 'integer')
    .addColumn('phonenumber', 'varchar(255)')
    .addColumn('phonenumber_mobile', 'varchar(255)')
    .addColumn('street', 'varchar(255)')
    .addColumn('housenumber', 'varchar(255)')
    .addColumn('zip', 'varchar(255)')
    .addColumn('city', 'varchar(255)')
    .addColumn('is_vegetarian', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('can_swimm', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('password', 'varchar(255)', (col) => col.notNull())
    .addColumn('is_active', 'boolean', (col) => col.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('updated_at', 'timestamp', (col) => col.notNull())
    .execute();

  // Usernames and e-mail addresses are unique regardless of ASCII case.
  for (const column of ['username', 'email']) {
    await db.schema
      .createIndex(`users_${column}_lower_unique`)
      .on('users')
      .unique()
      .expression(sql.raw(lowerAsciiSql(db, column)))
      .execute();
  }

  await addIdColumn(db, db.schema.createTable('personal_access_tokens'))
    .addColumn('tokenable_type', 'varchar(255)', (col) => col.notNull())
    .addColumn('tokenable_id', bigint, (col) => col.notNull())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('token', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('abilities', 'text')
    .addColumn('last_used_at', 'timestamp')
    .addColumn('expires_at', 'timestamp')
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('updated_at', 'timestamp', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('personal_access_tokens_tokenable_type_tokenable_id_index')
    .on('personal_access_tokens')
    .columns(['tokenable_type', 'tokenable_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('personal_access_tokens').execute();
  await db.schema.dropTable('users').execute();
}
