import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';

// better-sqlite3 builds each row object in C++, one property at a time: 51 rows of the users
// table (23 columns) took 206 us, most of a people page's query. Read as arrays and turned into
// objects by a function made once per statement from its column names, they take 90 us
// (README, "Performance").

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

/** A prepared statement as Kysely's SQLite driver uses it, reading rows through rowBuilder. */
export class RowBuildingStatement implements SqliteStatement {
  readonly reader: boolean;
  private readonly rowOf: RowOf | null;

  constructor(private readonly statement: BetterSqlite3.Statement) {
    this.reader = statement.reader;
    this.rowOf = statement.reader ? rowBuilder(statement.columns().map((column) => column.name)) : null;
    if (statement.reader) statement.raw(true);
  }

  all(parameters: readonly unknown[]): unknown[] {
    const values = this.statement.all(parameters) as unknown[][];
    const rowOf = this.rowOf!;
    const rows = new Array<Row>(values.length);
    for (let i = 0; i < values.length; i++) rows[i] = rowOf(values[i]!);
    return rows;
  }

  run(parameters: readonly unknown[]): BetterSqlite3.RunResult {
    return this.statement.run(parameters);
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    const rowOf = this.rowOf!;
    for (const values of this.statement.iterate(parameters) as IterableIterator<unknown[]>) yield rowOf(values);
  }
}
