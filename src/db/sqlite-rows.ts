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
  private rowOf: RowOf | null = null;
  private width = 0;

  constructor(private readonly statement: BetterSqlite3.Statement) {
    this.reader = statement.reader;
    if (statement.reader) {
      statement.raw(true);
      this.learnColumns();
    }
  }

  /**
   * SQLite prepares a statement again by itself when a table it reads changed (a migration):
   * `select *` then has other columns, so the builder follows when the width differs.
   */
  private learnColumns(): RowOf {
    const names = this.statement.columns().map((column) => column.name);
    this.width = names.length;
    this.rowOf = rowBuilder(names);
    return this.rowOf;
  }

  private builderFor(values: unknown[] | undefined): RowOf {
    return values !== undefined && values.length !== this.width ? this.learnColumns() : this.rowOf!;
  }

  all(parameters: readonly unknown[]): unknown[] {
    const values = this.statement.all(parameters) as unknown[][];
    const rowOf = this.builderFor(values[0]);
    const rows = new Array<Row>(values.length);
    for (let i = 0; i < values.length; i++) rows[i] = rowOf(values[i]!);
    return rows;
  }

  run(parameters: readonly unknown[]): BetterSqlite3.RunResult {
    return this.statement.run(parameters);
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    let rowOf: RowOf | null = null;
    for (const values of this.statement.iterate(parameters) as IterableIterator<unknown[]>) {
      rowOf ??= this.builderFor(values);
      yield rowOf(values);
    }
  }
}
