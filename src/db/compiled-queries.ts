import { CompiledQuery, createQueryId, type Compilable, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';

// Building a query with Kysely and compiling it costs about as much CPU as SQLite takes to answer
// a page of people (docs/benchmarks/design.md), and a walk through a list asks the same query again
// and again with only its cursor changed. These keep the compiled text and parameters of a query
// per database handle and shape; only the values that vary are put in again.

/** What a shape's inputs may hold: their JSON text is the shape's key, and must say all of them. */
export type ShapeInputs = string | number | boolean | null | readonly ShapeInputs[] | { readonly [name: string]: ShapeInputs };

/** Stands in for a varying value while a shape is compiled: found again among the parameters by identity. */
class Slot {
  constructor(readonly index: number) {}
}

/** A compiled shape: a query of its text alone (Kysely's operation tree is not kept), and its parameters. */
interface Shape {
  query: CompiledQuery;
  /** For each parameter: the varying value it takes (its index), or -1 for one fixed by the shape. */
  slotOfParameter: readonly number[];
}

/**
 * Compiled queries of one kind, kept per handle (a tenant's database; a handle's SQL names its
 * schema on PostgreSQL) for up to `perHandle` shapes each. A transaction's handle lives for one
 * transaction: its queries are compiled as they come.
 *
 * `build` gets the shape's `inputs` and stand-ins for the `varying` values, and nothing else: it is
 * a function of its own (no closure over the request), so the key, the JSON text of `inputs`,
 * names everything the query depends on. It may only pass a varying value into the query as a
 * value, never look at it: a shape whose stand-ins do not each reach the parameters unchanged is
 * refused, but a test of a stand-in would be kept for every later value.
 */
export class CompiledQueries<Db extends Kysely<any>, Inputs extends ShapeInputs> {
  private readonly byHandle = new WeakMap<Db, LRUCache<string, Shape>>();

  constructor(
    private readonly build: (db: Db, inputs: Inputs, varying: readonly unknown[]) => Compilable,
    private readonly perHandle: number,
  ) {}

  compile(db: Db, inputs: Inputs, varying: readonly unknown[]): CompiledQuery {
    if (db.isTransaction) return this.build(db, inputs, varying).compile();
    const key = `${varying.length}|${JSON.stringify(inputs)}`;
    let shapes = this.byHandle.get(db);
    if (shapes === undefined) {
      shapes = new LRUCache({ max: this.perHandle });
      this.byHandle.set(db, shapes);
    }
    let shape = shapes.get(key);
    if (shape === undefined) {
      shape = this.compileShape(db, inputs, varying.length);
      shapes.set(key, shape);
    }
    const { query, slotOfParameter } = shape;
    // Its own query id: plugins carry what they keep from a query to its result by it.
    return { ...query, queryId: createQueryId(), parameters: slotOfParameter.map((slot, i) => (slot < 0 ? query.parameters[i] : varying[slot])) };
  }

  private compileShape(db: Db, inputs: Inputs, count: number): Shape {
    const slots = Array.from({ length: count }, (_, index) => new Slot(index));
    const { sql, parameters } = this.build(db, inputs, slots).compile();
    const slotOfParameter = parameters.map((parameter) => (parameter instanceof Slot ? parameter.index : -1));
    const reached = new Set(slotOfParameter.filter((slot) => slot >= 0));
    if (reached.size !== count) throw new Error('a varying value of the query did not reach its parameters unchanged');
    return { query: CompiledQuery.raw(sql, [...parameters]), slotOfParameter };
  }
}
