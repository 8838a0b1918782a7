/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { addIdColumn, isPostgres } from '../dialect.js';

/**
 * Calendar feeds (modules/calendars).
 *
 * `calendar_feeds`: a person's secret feed address, one per person (a new one replaces the old),
 * the secret as its sha256 (hex). `last_used_at` is written at most once a minute.
 *
 * `events.sequence`: iCalendar's SEQUENCE of the event, raised when its time or place changes, so
 * that a calendar that has the event already takes the new version. Not part of the event's JSON.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';
  await addIdColumn(db, db.schema.createTable('calendar_feeds'))
    .addColumn('person_id', bigint, (col) => col.notNull().unique())
    .addColumn('token', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('created_at', 'timestamp', (col) => col.notNull())
    .addColumn('last_used_at', 'timestamp')
    .execute();
  await db.schema.alterTable('events').addColumn('sequence', 'integer', (col) => col.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('sequence').execute();
  await db.schema.dropTable('calendar_feeds').execute();
}
