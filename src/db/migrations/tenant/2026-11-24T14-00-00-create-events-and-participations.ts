/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely } from 'kysely';
import { addIdColumn, isPostgres } from '../dialect.js';

/**
 * Events and participations. An event keeps the counts that `capacity` limits
 * (`participants_count`, `waitlist_count`) on its own row: every change of its participations
 * locks that row first, so the counts are exact however many registrations arrive at once.
 *
 * A person has at most one live (pending, accepted, waitlisted) participation per event: a
 * partial unique index says so even to two requests that race past the check.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';
  const binaryText = isPostgres(db) ? sql`text collate "C"` : sql`text`;
  await addIdColumn(db, db.schema.createTable('events'))
    .addColumn('group_id', bigint, (col) => col.notNull().references('groups.id'))
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('name_key', binaryText, (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('location', 'varchar(255)')
    .addColumn('starts_at', 'timestamp', (col) => col.notNull())
    .addColumn('ends_at', 'timestamp', (col) => col.notNull())
    .addColumn('registration_opens_at', 'timestamp')
    .addColumn('registration_closes_at', 'timestamp')
    .addColumn('capacity', 'integer')
    .addColumn('waiting_list', 'boolean', (col) => col.notNull().defaultTo(true))
    .addColumn('requires_approval', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('participants_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('waitlist_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('updated_at', 'timestamp', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('events_starts_at').on('events').columns(['starts_at', 'id']).execute();
  await db.schema.createIndex('events_group_id').on('events').columns(['group_id', 'starts_at', 'id']).execute();

  await addIdColumn(db, db.schema.createTable('participations'))
    .addColumn('event_id', bigint, (col) => col.notNull().references('events.id').onDelete('cascade'))
    .addColumn('person_id', bigint, (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'varchar(16)', (col) => col.notNull())
    .addColumn('state', 'varchar(16)', (col) => col.notNull())
    .addColumn('waitlist_position', 'integer')
    .addColumn('attended', 'boolean')
    .addColumn('notes', 'text')
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('updated_at', 'timestamp', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('participations_event_id').on('participations').columns(['event_id', 'id']).execute();
  await db.schema.createIndex('participations_person_id').on('participations').columns(['person_id', 'id']).execute();
  await db.schema.createIndex('participations_queue').on('participations').columns(['event_id', 'state', 'waitlist_position']).execute();
  await db.schema
    .createIndex('participations_live_unique')
    .on('participations')
    .columns(['event_id', 'person_id'])
    .unique()
    .where(sql.ref('state'), 'in', sql`('pending', 'accepted', 'waitlisted')`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('participations').execute();
  await db.schema.dropTable('events').execute();
}
