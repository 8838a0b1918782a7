import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RowBuildingStatement, type StatementSource } from '../../src/db/sqlite-rows.js';

// The statement reads rows as arrays and names them by a builder tied to the schema version. These
// tests put another process's migration exactly where it is hardest to see: between a read and the
// look at the version after it.

let dir: string;
let own: BetterSqlite3.Database;
let other: BetterSqlite3.Database;
/** Run by the source the next time the statement looks at the schema version, then forgotten. */
let beforeNextLook: (() => void) | null;
let looks: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'groupadmin-rows-'));
  own = new BetterSqlite3(join(dir, 'db.sqlite'));
  own.pragma('journal_mode = WAL');
  other = new BetterSqlite3(join(dir, 'db.sqlite'));
  other.exec('create table t (a, b, c); insert into t values (1, 2, 3)');
  beforeNextLook = null;
  looks = 0;
});
afterEach(() => {
  own.close();
  other.close();
  rmSync(dir, { recursive: true, force: true });
});

function statement(sql: string): RowBuildingStatement {
  const version = own.prepare('pragma schema_version').pluck();
  const source: StatementSource = {
    prepare: (text) => own.prepare(text),
    schemaVersion: () => {
      looks++;
      const change = beforeNextLook;
      beforeNextLook = null;
      change?.();
      return version.get() as number;
    },
  };
  return new RowBuildingStatement(source, sql);
}

describe('rows read as arrays', () => {
  it('names every read by its own columns when a migration lands between a read and the look after it', () => {
    const read = statement('select * from t');
    expect(read.all([])).toEqual([{ a: 1, b: 2, c: 3 }]);
    expect(read.all([])).toEqual([{ a: 1, b: 2, c: 3 }]);
    // The read ran on the old columns; the look after it sees the new version.
    beforeNextLook = () => other.exec('alter table t rename column b to bb');
    expect(read.all([])).toEqual([{ a: 1, b: 2, c: 3 }]);
    // The next read runs on the new columns, under the version the last look saw already.
    expect(read.all([])).toEqual([{ a: 1, bb: 2, c: 3 }]);
    expect(read.all([])).toEqual([{ a: 1, bb: 2, c: 3 }]);
    // As many columns as before, in another order.
    beforeNextLook = () => other.exec('alter table t drop column a; alter table t add column d default 4');
    expect(read.all([])).toEqual([{ a: 1, bb: 2, c: 3 }]);
    expect(read.all([])).toEqual([{ bb: 2, c: 3, d: 4 }]);
    // A migration before a read, seen by the look after it.
    other.exec('alter table t add column e default 5');
    expect(read.all([])).toEqual([{ bb: 2, c: 3, d: 4, e: 5 }]);
    expect(read.all([])).toEqual([{ bb: 2, c: 3, d: 4, e: 5 }]);
  });

  it('looks at the schema version once a read, and never runs a read twice (it may be a write with returning)', () => {
    const insert = statement('insert into t (a, b, c) values (?, ?, ?) returning a, b, c');
    expect(insert.all([7, 8, 9])).toEqual([{ a: 7, b: 8, c: 9 }]);
    beforeNextLook = () => other.exec('alter table t add column d default 4');
    expect(insert.all([10, 11, 12])).toEqual([{ a: 10, b: 11, c: 12 }]);
    expect(insert.all([13, 14, 15])).toEqual([{ a: 13, b: 14, c: 15 }]);
    expect(looks).toBe(3);
    expect(own.prepare('select a from t order by a').pluck().all()).toEqual([1, 7, 10, 13]);
  });
});
