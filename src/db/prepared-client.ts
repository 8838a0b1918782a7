import pg from 'pg';
import { LRUCache } from 'lru-cache';

// PostgreSQL parses and plans every unnamed statement it is sent. For the short queries of a
// request that was most of the database's work: a page of people took 0.3 ms to parse and 0.4 ms
// to bind (plan) against 0.3 ms to run (docs/benchmarks/design.md). A statement sent with a name is
// parsed once per connection, and PostgreSQL may keep its plan.

/** A text is prepared from its second use on: one-off texts (an IN list of a new length) are not. */
const USES_BEFORE_PREPARING = 2;
/** Texts whose uses are counted (across all connections). */
const TEXTS_COUNTED = 2000;
/** Longer texts (bulk inserts of many rows) are never prepared, nor counted. */
const LONGEST_PREPARED = 8000;
/**
 * Statements one connection keeps prepared at most; past that, the one used least lately is
 * deallocated. Each costs the database process its parse tree and plans (tens of KB): a bound per
 * connection bounds the database's memory however many tenants (schemas, so texts) there are.
 */
export const PREPARED_PER_CONNECTION = 200;

const uses = new LRUCache<string, number>({ max: TEXTS_COUNTED });

/** Whether `text` is now worth preparing (counts this use). */
function worthPreparing(text: string): boolean {
  if (text.length > LONGEST_PREPARED) return false;
  const count = (uses.get(text) ?? 0) + 1;
  uses.set(text, count);
  return count >= USES_BEFORE_PREPARING;
}

/**
 * A prepared statement whose table a migration changed under a running instance (a column added
 * to a table read with `select *` or `returning *`).
 */
const isPlanChanged = (err: unknown) =>
  (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String((err as { message?: unknown }).message));

/** pg's own record of what this connection has parsed, by name: forgotten with the statement. */
type WithParsedStatements = { connection?: { parsedStatements?: Record<string, string> } };

/**
 * pg's client, naming the statements that repeat. Kysely sends every query as a text with its
 * values; what it sends and what comes back are unchanged.
 */
export class PreparingClient extends pg.Client {
  /** Text -> name of the statements prepared on this connection, least lately used first. */
  private readonly prepared = new Map<string, string>();
  private named = 0;
  private readonly plain: (...args: unknown[]) => unknown;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // pg's query() has a dozen overloads; the client keeps them all, and only this path differs.
    this.plain = pg.Client.prototype.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: unknown[]) => this.send(args)) as pg.Client['query'];
  }

  private send(args: unknown[]): unknown {
    const [text, values, callback] = args;
    // Statements without values (BEGIN, COMMIT, DDL) stay as they were: they cost little to parse.
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || typeof callback === 'function') return this.plain(...args);
    const name = this.nameFor(text);
    if (name === undefined) return this.plain(text, values);
    return (this.plain({ name, text, values }) as Promise<pg.QueryResult>).catch(async (err: unknown) => {
      if (!isPlanChanged(err)) throw err;
      // Prepared again under a new name at its next use; this time it goes unnamed.
      this.drop(text);
      try {
        return await this.plain(text, values);
      } catch {
        // Inside a transaction the failed statement has aborted it: the caller gets the first
        // error, which errors.ts counts as storage refusing for now (503, try again).
        throw err;
      }
    });
  }

  /** The statement's name on this connection, preparing it if it is worth it; else undefined. */
  private nameFor(text: string): string | undefined {
    const known = this.prepared.get(text);
    if (known !== undefined) {
      this.prepared.delete(text);
      this.prepared.set(text, known);
      return known;
    }
    if (!worthPreparing(text)) return undefined;
    if (this.prepared.size >= PREPARED_PER_CONNECTION) this.drop(this.prepared.keys().next().value!);
    const name = `ga_${(this.named++).toString(36)}`;
    this.prepared.set(text, name);
    return name;
  }

  /** Deallocates a statement of this connection. Queued behind what the connection is doing. */
  private drop(text: string): void {
    const name = this.prepared.get(text);
    if (name === undefined) return;
    this.prepared.delete(text);
    delete (this as WithParsedStatements).connection?.parsedStatements?.[name];
    // Names are never used again on this connection, so a failed deallocation (an aborted
    // transaction) only leaves the statement until the connection closes.
    (this.plain(`deallocate "${name}"`) as Promise<unknown>).catch(() => undefined);
  }
}
