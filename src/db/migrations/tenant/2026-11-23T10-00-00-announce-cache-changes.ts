/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely } from 'kysely';
import { addIdColumn, isPostgres, schemaOf } from '../dialect.js';

/**
 * The outbox of cache changes: triggers write every update or deletion of a user or a token into
 * `cache_changes`, in the transaction that makes it, so no write can forget to announce itself.
 * A token's `last_used_at` is not announced: no cache needs it, and it is written once a minute.
 */
const TOKEN_COLUMNS_CACHED = ['tokenable_type', 'tokenable_id', 'name', 'token', 'abilities', 'expires_at', 'created_at', 'updated_at'];

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = isPostgres(db) ? 'bigint' : 'integer';
  await addIdColumn(db, db.schema.createTable('cache_changes'))
    .addColumn('user_id', bigint)
    .addColumn('token_id', bigint)
    .execute();

  const tokenColumns = TOKEN_COLUMNS_CACHED.join(', ');
  if (!isPostgres(db)) {
    for (const [name, event, table, column] of [
      ['users_changed', 'update', 'users', 'user_id'],
      ['users_deleted', 'delete', 'users', 'user_id'],
      ['tokens_changed', `update of ${tokenColumns}`, 'personal_access_tokens', 'token_id'],
      ['tokens_deleted', 'delete', 'personal_access_tokens', 'token_id'],
    ]) {
      await sql
        .raw(`create trigger ${name} after ${event} on ${table} begin insert into cache_changes (${column}) values (old.id); end`)
        .execute(db);
    }
    return;
  }
  const schema = `"${(schemaOf(db) ?? 'public').replace(/"/g, '""')}"`;
  for (const [fn, column] of [
    ['announce_user_change', 'user_id'],
    ['announce_token_change', 'token_id'],
  ]) {
    await sql
      .raw(
        `create function ${schema}.${fn}() returns trigger language plpgsql as $$ ` +
          `begin insert into ${schema}.cache_changes (${column}) values (old.id); return null; end $$`,
      )
      .execute(db);
  }
  await sql
    .raw(`create trigger users_changed after update or delete on ${schema}.users for each row execute function ${schema}.announce_user_change()`)
    .execute(db);
  await sql
    .raw(
      `create trigger tokens_changed after update of ${tokenColumns} or delete on ${schema}.personal_access_tokens ` +
        `for each row execute function ${schema}.announce_token_change()`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    const schema = `"${(schemaOf(db) ?? 'public').replace(/"/g, '""')}"`;
    await sql.raw(`drop trigger users_changed on ${schema}.users`).execute(db);
    await sql.raw(`drop trigger tokens_changed on ${schema}.personal_access_tokens`).execute(db);
    await sql.raw(`drop function ${schema}.announce_user_change()`).execute(db);
    await sql.raw(`drop function ${schema}.announce_token_change()`).execute(db);
  } else {
    for (const name of ['users_changed', 'users_deleted', 'tokens_changed', 'tokens_deleted']) {
      await sql.raw(`drop trigger ${name}`).execute(db);
    }
  }
  await db.schema.dropTable('cache_changes').execute();
}
