/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely } from 'kysely';
import { isPostgres, schemaOf } from '../dialect.js';

/**
 * A person's version moves whenever their names do. The service moves it with every write of a
 * users row; this trigger does it for a rename made with SQL behind the service's back (a typo
 * fixed in psql) that leaves the version as it was. Name-sorted pages of people take the
 * cursor's names, and every page its people's JSON, from what is kept for the version the page's
 * query reads (people/json-memory.ts): with the version moved, what was kept for the old names
 * is never used again, so such a walk neither skips nor repeats anyone, and the new names show at
 * once. (Other columns changed that way still wait for the change feed, as before; and such a
 * rename still moves neither `updated_at` nor writes a change record or webhook, which only the
 * service's own writes do.) The sort keys count as names here though no answer shows them: a
 * later data migration that computes every `*_key` anew moves every person's version (their
 * ETag), so an If-Match sent before it gets 412, and on SQLite each person is announced twice.
 */
const NAMES = ['lastname_key', 'firstname_key', 'lastname', 'firstname'];

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    const schema = `"${(schemaOf(db) ?? 'public').replace(/"/g, '""')}"`;
    const renamed = NAMES.map((column) => `old.${column} is distinct from new.${column}`).join(' or ');
    await sql
      .raw(
        `create function ${schema}.users_version_moves_with_names() returns trigger language plpgsql as $$ ` +
          `begin new.version := old.version + 1; return new; end $$`,
      )
      .execute(db);
    // Before the row is written: the same row takes the new version, in the same statement.
    await sql
      .raw(
        `create trigger users_version_moves_with_names before update of ${NAMES.join(', ')} on ${schema}.users for each row ` +
          `when (new.version = old.version and (${renamed})) execute function ${schema}.users_version_moves_with_names()`,
      )
      .execute(db);
    return;
  }
  const renamed = NAMES.map((column) => `old.${column} is not new.${column}`).join(' or ');
  // SQLite changes NEW only by a second update, which touches no name and so fires no rename trigger.
  await sql
    .raw(
      `create trigger users_version_moves_with_names after update of ${NAMES.join(', ')} on users ` +
        `when new.version = old.version and (${renamed}) begin update users set version = version + 1 where id = new.id; end`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    const schema = `"${(schemaOf(db) ?? 'public').replace(/"/g, '""')}"`;
    await sql.raw(`drop trigger users_version_moves_with_names on ${schema}.users`).execute(db);
    await sql.raw(`drop function ${schema}.users_version_moves_with_names()`).execute(db);
    return;
  }
  await sql.raw('drop trigger users_version_moves_with_names').execute(db);
}
