import pg from 'pg';
import { LRUCache } from 'lru-cache';

// PostgreSQL parses and plans every unnamed statement it is sent. For the short queries of a
// request that was most of the database's work: a page of people took 0.3 ms to parse and 0.4 ms
// to bind (plan) against 0.3 ms to run (README, "Performance"). A statement sent with a name is
// parsed once per connection, and PostgreSQL keeps its plan.

/** A text is prepared from its second use on: one-off texts (an IN list of a new length) are not. */
const USES_BEFORE_PREPARING = 2;
/** Texts whose uses are counted, and names given (across all connections). */
const TEXTS_COUNTED = 2000;
/**
 * Statements one connection prepares at most; past that it sends the rest unnamed, as before.
 * Each costs the database process its parse tree and plans (tens of KB): a bound per connection
 * bounds the database's memory however many tenants (schemas, so texts) there are. Connections are
 * renewed every hour (the pool's maxLifetimeSeconds), so the slots follow what is used.
 */
export const PREPARED_PER_CONNECTION = 200;

interface Sighting {
  uses: number;
  name: string | undefined;
}

const sightings = new LRUCache<string, Sighting>({ max: TEXTS_COUNTED });
let named = 0;

/** The statement name for `text` once it is worth preparing, else undefined. */
function nameFor(text: string): string | undefined {
  let sighting = sightings.get(text);
  if (sighting === undefined) {
    sighting = { uses: 0, name: undefined };
    sightings.set(text, sighting);
  }
  if (sighting.name === undefined && ++sighting.uses >= USES_BEFORE_PREPARING) sighting.name = `ga_${(named++).toString(36)}`;
  return sighting.name;
}

/**
 * Raised when a table a prepared statement reads was altered so that its result changed (a
 * migration added a column to a table read with `select *`): that statement is then sent unnamed.
 */
const PLAN_CHANGED = '0A000';

/**
 * pg's client, naming the statements that repeat. Kysely sends every query as a text with its
 * values; what it sends and what comes back are unchanged.
 */
export class PreparingClient extends pg.Client {
  private readonly prepared = new Set<string>();
  /** Names this connection must no longer use (PLAN_CHANGED). */
  private readonly refused = new Set<string>();

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // pg's query() has a dozen overloads; the client keeps them all, and only this path differs.
    const plain = pg.Client.prototype.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: unknown[]) => this.send(plain, args)) as pg.Client['query'];
  }

  private send(plain: (...args: unknown[]) => unknown, args: unknown[]): unknown {
    const [text, values, callback] = args;
    // Statements without values (BEGIN, COMMIT, DDL) stay as they were: they cost little to parse.
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || typeof callback === 'function') return plain(...args);
    const name = nameFor(text);
    if (name === undefined || this.refused.has(name) || (!this.prepared.has(name) && this.prepared.size >= PREPARED_PER_CONNECTION)) {
      return plain(text, values);
    }
    this.prepared.add(name);
    return (plain({ name, text, values }) as Promise<pg.QueryResult>).catch(async (err: unknown) => {
      if ((err as { code?: string }).code !== PLAN_CHANGED) throw err;
      this.refused.add(name);
      try {
        return await plain(text, values);
      } catch {
        // Inside a transaction the failed statement has aborted it: the caller gets the first
        // error, which errors.ts counts as storage refusing for now (503, try again).
        throw err;
      }
    });
  }
}
