import { PostgresAdapter, type Kysely } from 'kysely';

/** Whether `db` speaks to PostgreSQL: for the few statements the two dialects spell differently. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const onPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
