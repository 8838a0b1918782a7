import { sql, type Kysely, type RawBuilder } from 'kysely';
import { onPostgres } from './dialect.js';

/**
 * A text column compared code point by code point, as SQLite always does and PostgreSQL does
 * with `collate "C"`: the order of lists and their cursors never depends on the database's locale.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function binaryText(db: Kysely<any>, column: string): RawBuilder<string> {
  return onPostgres(db) ? sql<string>`${sql.ref(column)} collate "C"` : sql<string>`${sql.ref(column)}`;
}
