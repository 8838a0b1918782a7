import type { Insertable, Kysely } from 'kysely';
import type { PersonalAccessTokensTable, TenantDatabase, UsersTable } from '../../db/types.js';
import { sortKey } from '../../lib/sort-key.js';

// The importer copies rows as the original service stored them (ids, password hashes, token
// hashes, timestamps), which no rule of the users or tokens modules would create: so it writes
// those tables with statements of its own, here and nowhere else.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SourceDb = Kysely<any>;
type TargetDb = Kysely<TenantDatabase>;

/** The column names of a table of the source database, or null when it has no such table. */
export async function sourceTableColumns(source: SourceDb, table: string): Promise<Set<string> | null> {
  const tables = (await source.introspection.getTables()).filter((t) => t.name === table);
  const found = tables.find((t) => t.schema === undefined || t.schema === 'public') ?? tables[0];
  return found ? new Set(found.columns.map((column) => column.name)) : null;
}

/** The next rows of a source table by id (keyset, so a large table is read in constant memory). */
export function readSourceBatch(source: SourceDb, table: string, columns: string[], afterId: number, size: number): Promise<Record<string, unknown>[]> {
  return source.selectFrom(table).select(columns).where('id', '>', afterId).orderBy('id').limit(size).execute();
}

export const findImportedUser = (db: TargetDb, id: number) =>
  db.selectFrom('users').select('username').where('id', '=', id).executeTakeFirst();

export async function insertImportedUser(db: TargetDb, row: Omit<Insertable<UsersTable>, 'lastname_key' | 'firstname_key'>): Promise<void> {
  await db
    .insertInto('users')
    .values({ ...row, lastname_key: sortKey(row.lastname), firstname_key: sortKey(row.firstname) })
    .execute();
}

export const findImportedToken = (db: TargetDb, id: number) =>
  db.selectFrom('personal_access_tokens').select('token').where('id', '=', id).executeTakeFirst();

export async function insertImportedToken(db: TargetDb, row: Insertable<PersonalAccessTokensTable>): Promise<void> {
  await db.insertInto('personal_access_tokens').values(row).execute();
}
