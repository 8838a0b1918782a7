/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely } from 'kysely';
import { isPostgres, schemaOf } from '../dialect.js';

/**
 * A token may be a browser's session (a cookie holds it): `session_remember` 0 for a session that
 * ends after a short idle time, 1 for one the person asked to be remembered; null for every other
 * token (an API client's). Sessions end by idleness, counted from `last_used_at`.
 *
 * The column is read by the token caches, so a change of it is announced like the others: the
 * trigger of the cache outbox is made again with it in its list.
 */
const TOKEN_COLUMNS_CACHED = ['tokenable_type', 'tokenable_id', 'name', 'token', 'abilities', 'expires_at', 'created_at', 'updated_at'];

async function announceChangesOf(db: Kysely<any>, columns: string[]): Promise<void> {
  const list = columns.join(', ');
  if (!isPostgres(db)) {
    await sql.raw('drop trigger tokens_changed').execute(db);
    await sql
      .raw(`create trigger tokens_changed after update of ${list} on personal_access_tokens begin insert into cache_changes (token_id) values (old.id); end`)
      .execute(db);
    return;
  }
  const schema = `"${(schemaOf(db) ?? 'public').replace(/"/g, '""')}"`;
  await sql.raw(`drop trigger tokens_changed on ${schema}.personal_access_tokens`).execute(db);
  await sql
    .raw(
      `create trigger tokens_changed after update of ${list} or delete on ${schema}.personal_access_tokens ` +
        `for each row execute function ${schema}.announce_token_change()`,
    )
    .execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('personal_access_tokens').addColumn('session_remember', 'integer').execute();
  await announceChangesOf(db, [...TOKEN_COLUMNS_CACHED, 'session_remember']);
}

export async function down(db: Kysely<any>): Promise<void> {
  await announceChangesOf(db, TOKEN_COLUMNS_CACHED);
  await db.schema.alterTable('personal_access_tokens').dropColumn('session_remember').execute();
}
