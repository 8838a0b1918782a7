/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * Change records: one per create, update and delete of a person,
 * group, membership, guardianship, role type, event or participation, written in the same
 * transaction as the change.
 *
 * `seq` is handed out from the one row of `change_sequence` at the very end of each writing
 * transaction: the row stays locked until commit, so numbers are taken in commit order (a reader
 * that has seen N never sees a record below N appear later), and a long transaction holds the row
 * only for its last statements, not for its whole length.
 *
 * `person_id` is the person a record is about (a person, their membership, participation, or a
 * guardianship of theirs as the ward); `other_person_id` the guardian of a guardianship. Both find
 * the records that a person's history shows and that their erasure blanks.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';
  await db.schema
    .createTable('change_records')
    .addColumn('seq', bigint, (col) => col.primaryKey())
    .addColumn('entity', 'varchar(16)', (col) => col.notNull())
    .addColumn('entity_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('action', 'varchar(16)', (col) => col.notNull())
    .addColumn('at', 'timestamp', (col) => col.notNull())
    .addColumn('actor_id', bigint)
    .addColumn('person_id', bigint)
    .addColumn('other_person_id', bigint)
    .addColumn('changes', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('change_records_entity').on('change_records').columns(['entity', 'entity_id', 'seq']).execute();
  await db.schema.createIndex('change_records_person_id').on('change_records').columns(['person_id', 'seq']).execute();
  await db.schema.createIndex('change_records_other_person_id').on('change_records').columns(['other_person_id']).execute();
  await db.schema.createIndex('change_records_actor_id').on('change_records').columns(['actor_id']).execute();
  await db.schema.createIndex('change_records_at').on('change_records').columns(['at']).execute();

  await db.schema
    .createTable('change_sequence')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('last_seq', bigint, (col) => col.notNull())
    .addColumn('pruned_through', bigint, (col) => col.notNull())
    .execute();
  await db.insertInto('change_sequence').values({ id: 1, last_seq: 0, pruned_through: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_sequence').execute();
  await db.schema.dropTable('change_records').execute();
}
