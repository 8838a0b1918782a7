import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';

// better-sqlite3 builds each row object in C++, one property at a time: 51 rows of the users
// table (23 columns) took 206 us, most of a people page's query. Read as arrays and turned into
// objects by a function made once per statement from its column names, they take 90 us
// (docs/benchmarks/design.md).

type Row = Record<string, unknown>;
type RowOf = (values: unknown[]) => Row;

/**
 * A function that makes the row object of one statement's values: an object literal, so every
 * row of the statement shares one shape. Column names are the statement's own (ours); a later
 * column of the same name wins, as it does in better-sqlite3's own rows.
 */
export function rowBuilder(names: readonly string[]): RowOf {
  // `__proto__` in a literal would set the prototype rather than a property.
  if (names.includes('__proto__')) {
    return (values) => {
      const row: Row = {};
      names.forEach((name, i) => Object.defineProperty(row, name, { value: values[i], enumerable: true, writable: true, configurable: true }));
      return row;
    };
  }
  const fields = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ');
  return new Function('values', `return { ${fields} };`) as RowOf;
}

/** What a statement needs of its connection: preparing, and the schema's version. */
export interface StatementSource {
  prepare(sql: string): BetterSqlite3.Statement;
  /** PRAGMA schema_version: SQLite raises it with every change of a table, in any process. */
  schemaVersion(): number;
}

/**
 * A prepared statement as Kysely's SQLite driver uses it, reading rows through rowBuilder.
 *
 * SQLite prepares a statement again by itself when a table it reads changed (a migration by
 * another process: the command line, a newer instance), and `select *` then has other columns,
 * possibly as many in another order. After a read, the statement's columns are those of that
 * read, but asking for them costs more than the read's rows; so the builder is tied to the schema
 * version it was made under, looked at once after each read (2 us). The version only grows: a
 * read between two looks that saw the same version ran under that version. So a read followed by
 * the builder's version ran under it, and the builder is tied to a version only when it was made
 * from such a read. After any other look, the builder is made again from the read's own columns.
 * A read is never repeated: it may be a write with `returning`.
 */
export class RowBuildingStatement implements SqliteStatement {
  readonly reader: boolean;
  private readonly statement: BetterSqlite3.Statement;
  private rowOf: RowOf | null = null;
  /** The schema version the builder's names were read under; -1 while not known. */
  private builtUnder = -1;
  /** The schema version seen after this statement's last read; -1 before the first. */
  private lastSeen = -1;

  constructor(
    private readonly source: StatementSource,
    private readonly sql: string,
  ) {
    this.statement = source.prepare(sql);
    this.reader = this.statement.reader;
    if (this.reader) this.statement.raw(true);
  }

  all(parameters: readonly unknown[]): unknown[] {
    const values = this.statement.all(parameters) as unknown[][];
    const version = this.source.schemaVersion();
    if (version !== this.builtUnder) {
      this.rowOf = rowBuilder(this.statement.columns().map((column) => column.name));
      this.builtUnder = version === this.lastSeen ? version : -1;
    }
    this.lastSeen = version;
    const rowOf = this.rowOf!;
    const rows = new Array<Row>(values.length);
    for (let i = 0; i < values.length; i++) rows[i] = rowOf(values[i]!);
    return rows;
  }

  run(parameters: readonly unknown[]): BetterSqlite3.RunResult {
    return this.statement.run(parameters);
  }

  /** Streaming (no route streams through Kysely): better-sqlite3's own rows, always named right. */
  iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    return this.source.prepare(this.sql).iterate(parameters);
  }
}
