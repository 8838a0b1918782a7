/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, type CreateTableBuilder, type Kysely } from 'kysely';

// Migrations branch on the dialect only where SQLite and PostgreSQL spell a thing differently.
// This file is part of the frozen migrations: change it only by adding, never by editing.

export const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** An auto-numbered integer primary key `id`: bigserial on PostgreSQL, rowid alias on SQLite. */
export function addIdColumn<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, any>) {
  return isPostgres(db)
    ? table.addColumn('id', 'bigserial', (col) => col.primaryKey())
    : table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());
}

/** `lower(column)` that lowers ASCII letters only, on both dialects (SQLite's lower() already does). */
export const lowerAsciiSql = (db: Kysely<any>, column: string): string =>
  isPostgres(db) ? `lower(${column} collate "C")` : `lower(${column})`;

/**
 * The schema a migration's `db` (Kysely's withSchema) puts its tables in, or undefined (SQLite).
 * Raw statements that Kysely cannot build (triggers, functions) must name it themselves.
 */
export function schemaOf(db: Kysely<any>): string | undefined {
  const compiled = db.selectFrom('schema_probe').selectAll().compile().sql;
  return /from "((?:[^"]|"")+)"\."schema_probe"/.exec(compiled)?.[1]?.replace(/""/g, '"');
}
