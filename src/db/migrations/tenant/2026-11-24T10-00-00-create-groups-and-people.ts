/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely, type Migration } from 'kysely';
import { addIdColumn, isPostgres, lowerAsciiSql } from '../dialect.js';

/**
 * Groups, role types, memberships and guardianships, and the users table grown into
 * people: username, e-mail and password may be null (people without a login), `birthday`, the
 * name sort keys and a row `version` (the ETag). Every tenant gets its root group, named after
 * the tenant, and the four default role types; no membership is granted (an operator grants the
 * first administrator of an existing tenant).
 *
 * Frozen: the sort key below is a copy, so that this migration computes today what it computed
 * when it was written, whatever lib/ becomes.
 */
const sortKey = (text: string): string => text.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');

const DEFAULT_ROLE_TYPES = [
  ['admin', 'Administrator', 'admin', 'subtree'],
  ['leader', 'Leader', 'write', 'subtree'],
  ['assistant', 'Assistant', 'read', 'group'],
  ['member', 'Member', 'none', 'group'],
] as const;

const USER_COLUMNS = [
  'id', 'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile',
  'street', 'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'password', 'is_active', 'created_at', 'updated_at',
];

const now = () => new Date().toISOString().replace('T', ' ').replace('Z', '000');

/** The migration for a tenant named `tenantName` (its root group carries the name). */
export function createGroupsAndPeople(tenantName: string): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await growUsersIntoPeople(db);
      await createGroups(db, tenantName);
      await createRoleTypes(db);
      await createMemberships(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      for (const table of ['guardianships', 'memberships', 'role_types', 'groups']) await db.schema.dropTable(table).execute();
      // The users table keeps its new columns: a person without a login cannot be put back.
    },
  };
}

/** Text compared byte by byte on both dialects (never the database's collation). */
const binaryText = (db: Kysely<any>) => (isPostgres(db) ? sql`text collate "C"` : sql`text`);

async function growUsersIntoPeople(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    for (const column of ['username', 'email', 'password']) {
      await db.schema.alterTable('users').alterColumn(column, (col) => col.dropNotNull()).execute();
    }
    await db.schema.alterTable('users').addColumn('birthday', 'varchar(10)').execute();
    await db.schema.alterTable('users').addColumn('lastname_key', binaryText(db), (col) => col.notNull().defaultTo('')).execute();
    await db.schema.alterTable('users').addColumn('firstname_key', binaryText(db), (col) => col.notNull().defaultTo('')).execute();
    await db.schema.alterTable('users').addColumn('version', 'integer', (col) => col.notNull().defaultTo(1)).execute();
  } else {
    // SQLite cannot drop NOT NULL: the table is rebuilt, and its indexes and triggers with it.
    await addIdColumn(db, db.schema.createTable('users_new'))
      .addColumn('username', 'varchar(255)')
      .addColumn('email', 'varchar(255)')
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
      .addColumn('password', 'varchar(255)')
      .addColumn('is_active', 'boolean', (col) => col.notNull().defaultTo(true))
      .addColumn('created_at', 'timestamp', (col) => col.notNull())
      .addColumn('updated_at', 'timestamp', (col) => col.notNull())
      .addColumn('birthday', 'varchar(10)')
      .addColumn('lastname_key', 'text', (col) => col.notNull().defaultTo(''))
      .addColumn('firstname_key', 'text', (col) => col.notNull().defaultTo(''))
      .addColumn('version', 'integer', (col) => col.notNull().defaultTo(1))
      .execute();
    const columns = USER_COLUMNS.join(', ');
    await sql.raw(`insert into users_new (${columns}) select ${columns} from users`).execute(db);
    await sql.raw('drop table users').execute(db);
    await sql.raw('alter table users_new rename to users').execute(db);
    for (const column of ['username', 'email']) {
      await db.schema.createIndex(`users_${column}_lower_unique`).on('users').unique().expression(sql.raw(lowerAsciiSql(db, column))).execute();
    }
    for (const [name, event] of [['users_changed', 'update'], ['users_deleted', 'delete']]) {
      await sql.raw(`create trigger ${name} after ${event} on users begin insert into cache_changes (user_id) values (old.id); end`).execute(db);
    }
  }
  // The sort keys of the people already there. (Their announcements in the outbox are harmless.)
  const people = await db.selectFrom('users').select(['id', 'firstname', 'lastname']).execute();
  for (const person of people) {
    await db
      .updateTable('users')
      .set({ lastname_key: sortKey(person.lastname), firstname_key: sortKey(person.firstname) })
      .where('id', '=', person.id)
      .execute();
  }
  await db.schema.createIndex('users_name_order').on('users').columns(['lastname_key', 'firstname_key', 'id']).execute();
  await db.schema.createIndex('users_updated_at').on('users').columns(['updated_at', 'id']).execute();
}

async function createGroups(db: Kysely<any>, tenantName: string): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';
  await addIdColumn(db, db.schema.createTable('groups'))
    .addColumn('parent_id', bigint, (col) => col.references('groups.id'))
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('name_key', binaryText(db), (col) => col.notNull())
    .addColumn('kind', 'varchar(64)', (col) => col.notNull().defaultTo(''))
    .addColumn('description', 'text')
    // The ids from the root down to the group itself, "/1/4/9/": "G and below" is a prefix.
    .addColumn('path', binaryText(db), (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('updated_at', 'timestamp', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('groups_path').on('groups').column('path').execute();
  await db.schema.createIndex('groups_parent_id').on('groups').column('parent_id').execute();
  const timestamp = now();
  const root = await db
    .insertInto('groups')
    .values({ parent_id: null, name: tenantName, name_key: sortKey(tenantName), kind: '', description: null, path: '/', created_at: timestamp, updated_at: timestamp })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('groups').set({ path: `/${Number(root.id)}/` }).where('id', '=', root.id).execute();
}

async function createRoleTypes(db: Kysely<any>): Promise<void> {
  await addIdColumn(db, db.schema.createTable('role_types'))
    .addColumn('key', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('label', 'varchar(255)', (col) => col.notNull())
    .addColumn('permission', 'varchar(8)', (col) => col.notNull())
    .addColumn('scope', 'varchar(8)', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('updated_at', 'timestamp', (col) => col.notNull())
    .execute();
  const timestamp = now();
  await db
    .insertInto('role_types')
    .values(DEFAULT_ROLE_TYPES.map(([key, label, permission, scope]) => ({ key, label, permission, scope, created_at: timestamp, updated_at: timestamp })))
    .execute();
}

async function createMemberships(db: Kysely<any>): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';
  await addIdColumn(db, db.schema.createTable('memberships'))
    .addColumn('person_id', bigint, (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('group_id', bigint, (col) => col.notNull().references('groups.id'))
    .addColumn('role_type', 'varchar(64)', (col) => col.notNull().references('role_types.key'))
    .addColumn('label', 'varchar(255)')
    // Days as YYYY-MM-DD text: they compare in date order, alike on both dialects.
    .addColumn('start_on', 'varchar(10)', (col) => col.notNull())
    .addColumn('end_on', 'varchar(10)')
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('updated_at', 'timestamp', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('memberships_person_id').on('memberships').columns(['person_id', 'start_on']).execute();
  await db.schema.createIndex('memberships_group_id').on('memberships').columns(['group_id', 'start_on']).execute();
  await db.schema.createIndex('memberships_role_type').on('memberships').column('role_type').execute();

  await addIdColumn(db, db.schema.createTable('guardianships'))
    .addColumn('guardian_id', bigint, (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('ward_id', bigint, (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addUniqueConstraint('guardianships_ward_guardian_unique', ['ward_id', 'guardian_id'])
    .execute();
  await db.schema.createIndex('guardianships_guardian_id').on('guardianships').column('guardian_id').execute();
}
