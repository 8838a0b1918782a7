import BetterSqlite3 from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { pgTypeParsers } from '../../db/postgres.js';

export class SourceError extends Error {
  override name = 'SourceError';
}

/**
 * Opens another application's database, read by URL: postgres://, mysql:// (or mariadb://), or
 * sqlite:<path> (also sqlite:///abs/path). Values come back as plain text and numbers, never Dates
 * shifted by a time zone. The MySQL driver is loaded only for a MySQL source: loading it took
 * about 40 % of every command's start.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function openSourceDatabase(url: string): Promise<Kysely<any>> {
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  switch (scheme) {
    case 'postgres':
    case 'postgresql':
      return new Kysely({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2, types: pgTypeParsers }) }),
      });
    case 'mysql':
    case 'mariadb': {
      const { createPool } = await import('mysql2');
      return new Kysely({
        dialect: new MysqlDialect({
          pool: createPool({ uri: url.replace(/^mariadb:/i, 'mysql:'), connectionLimit: 2, dateStrings: true, supportBigNumbers: true }),
        }),
      });
    }
    case 'sqlite': {
      const path = decodeURIComponent(url.replace(/^sqlite:(\/\/)?/i, ''));
      if (path === '') throw new SourceError('the sqlite: URL names no file');
      try {
        return new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(path, { readonly: true, fileMustExist: true }) }) });
      } catch (err) {
        throw new SourceError(`cannot open ${path}: ${(err as Error).message}`);
      }
    }
    default:
      throw new SourceError(`unsupported database URL "${scheme}:": use postgres://, mysql://, mariadb:// or sqlite:`);
  }
}
