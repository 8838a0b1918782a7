import pg from 'pg';
import type { CompiledQuery, DatabaseConnection, Driver, QueryCompiler, QueryResult, TransactionSettings } from 'kysely';
import { isConnectionLost } from './errors.js';
import { PreparingClient } from './prepared-client.js';

// HOT PATH (see docs/architecture.md): a tenant's reads on PostgreSQL, outside transactions.

/**
 * A statement that only reads: a SELECT with no locking clause. Read by its text, as the write
 * watcher reads writes (invalidation/watched-driver.ts); a statement this does not recognise goes
 * to the pool, where every statement went before.
 */
const READ = /^\s*select\b/i;
const LOCKS = /\bfor\s+(update|no\s+key\s+update|share|key\s+share)\b/i;
export const isPlainRead = (text: string): boolean => READ.test(text) && !LOCKS.test(text);

/** Connections that may carry the reads of one process. */
export const READ_PIPES = 3;
/**
 * A pipe with statements in flight that has answered none for this long is taken to be held up
 * by a long one: reads go to the next pipe meanwhile. An event-loop turn under load takes a few
 * milliseconds, in which no answer is read; a busy turn must not look like a stalled pipe.
 */
export const STALLED_AFTER_MS = 10;
/** Statements one pipe carries at once at most; past that, reads go to the next, then to the pool. */
export const PIPE_DEPTH = 64;
/**
 * Set on the pipes' connections. A read waits for a lock only behind a change of a table's shape
 * (a migration of a rolling deploy): it then gives up after LOCK_TIMEOUT_MS (storage refusing for
 * now, 503) rather than hold up the pipe. A statement unanswered after QUERY_TIMEOUT_MS ends its
 * connection (a server or network gone without a word), failing what is in flight on it.
 */
const LOCK_TIMEOUT_MS = 1000;
const QUERY_TIMEOUT_MS = 30_000;
/** How long closing waits for the statements in flight before it cuts the connections. */
const CLOSE_PATIENCE_MS = 1000;

export interface Pipe {
  client: Promise<pg.Client> | null;
  /** Statements sent on it and not yet answered. */
  inFlight: number;
  /** When it last answered a statement, or was sent one while it had none in flight. */
  lastProgressMs: number;
}

export interface ReadPipesOptions {
  databaseUrl: string;
  types: pg.ClientConfig['types'];
  connectionTimeoutMillis: number;
  count?: number;
}

/**
 * A few connections on which a process's reads are pipelined: each statement is written as soon as
 * it is asked, without waiting for the answers before it, and PostgreSQL answers them in order.
 *
 * Why: a statement on a connection of the pool is one write that wakes that connection's server
 * process, and one answer that wakes this one, and on two cores the wake-ups cost more than the
 * statement. A page of people took 72-77 us of PostgreSQL's CPU and 152-160 of the service's on
 * the pool, 48-57 and 125-155 with its reads pipelined; spread evenly over two pipes, the pages
 * went slower than on one (docs/benchmarks/design.md, "PostgreSQL").
 *
 * So reads fill the first pipe, and go on to the next only while the first is held up or full: a
 * read waits for those sent before it on its connection, and a long one (a page of a CSV export)
 * would hold up every read behind it. When every pipe is, reads take connections of the pool, as
 * every statement did before, with its wait for a connection bounded (503 after it). Writes,
 * transactions and reads that lock rows never come here: a statement waiting for a row's lock
 * would hold up its pipe for as long. A plain read waits for a lock only behind a change of a
 * table's shape, for LOCK_TIMEOUT_MS at most.
 */
export class ReadPipes {
  private readonly pipes: Pipe[];
  private closed = false;

  constructor(private readonly options: ReadPipesOptions) {
    this.pipes = Array.from({ length: options.count ?? READ_PIPES }, () => ({ client: null, inFlight: 0, lastProgressMs: 0 }));
  }

  /** A pipe to send the next read on, or undefined when every one is held up or full (the read then takes a connection of the pool). */
  take(): Pipe | undefined {
    const nowMs = performance.now();
    for (const pipe of this.pipes) {
      if (pipe.inFlight === 0) {
        pipe.lastProgressMs = nowMs;
        return pipe;
      }
      if (pipe.inFlight < PIPE_DEPTH && nowMs - pipe.lastProgressMs < STALLED_AFTER_MS) return pipe;
    }
    return undefined;
  }

  async executeQuery<R>(pipe: Pipe, query: CompiledQuery): Promise<QueryResult<R>> {
    pipe.inFlight++;
    const client = this.clientOf(pipe);
    try {
      const { rows } = await (await client).query(query.sql, [...query.parameters]);
      return { rows: (rows ?? []) as R[] };
    } catch (err) {
      // The server ended the connection (its answer to the statement in flight may come before
      // the connection's own end): the next read opens a new one rather than write into this.
      if (isConnectionLost(err)) this.forget(pipe, client);
      throw err;
    } finally {
      pipe.inFlight--;
      pipe.lastProgressMs = performance.now();
    }
  }

  /** The pipe's connection, opened again after it failed or closed. */
  private clientOf(pipe: Pipe): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('Client was closed and is not queryable'));
    if (pipe.client !== null) return pipe.client;
    const { databaseUrl, types, connectionTimeoutMillis } = this.options;
    // pg's pipeline mode (a client option its types do not list yet).
    const client = new PreparingClient({
      connectionString: databaseUrl,
      types,
      connectionTimeoutMillis,
      keepAlive: true,
      lock_timeout: LOCK_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      pipeline: true,
    } as pg.ClientConfig);
    const opened = client.connect().then(() => client);
    // A connection that fails or ends is forgotten at once: the statements in flight on it fail
    // (storage refusing for now, 503), and the next read opens a new one.
    const forget = () => this.forget(pipe, opened);
    client.on('error', forget);
    client.on('end', forget);
    opened.catch(forget);
    pipe.client = opened;
    return opened;
  }

  private forget(pipe: Pipe, client: Promise<pg.Client>): void {
    if (pipe.client !== client) return;
    pipe.client = null;
    client.then((open) => open.end(), () => undefined).catch(() => undefined);
  }

  /** Ends the connections once what is in flight is answered, or after CLOSE_PATIENCE_MS in any case. */
  async close(): Promise<void> {
    this.closed = true;
    const open = this.pipes.map((pipe) => pipe.client);
    for (const pipe of this.pipes) pipe.client = null;
    await Promise.all(
      open.map(async (opening) => {
        const client = await opening?.catch(() => undefined);
        if (client === undefined) return;
        let timer: NodeJS.Timeout | undefined;
        const impatient = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
            resolve();
          }, CLOSE_PATIENCE_MS);
        });
        await Promise.race([client.end().catch(() => undefined), impatient]);
        clearTimeout(timer);
      }),
    );
  }
}

/**
 * A connection that sends plain reads to the pipes until it needs one of the pool's connections:
 * from its first statement that is not a plain read (BEGIN among them), a transaction, or a
 * stream on, it holds one and sends everything there, until it is given back.
 */
class PipingConnection implements DatabaseConnection {
  /** The pool's connection this one holds from its first statement that is not a plain read on. */
  held: Promise<DatabaseConnection> | null = null;

  constructor(
    private readonly pool: Driver,
    private readonly pipes: ReadPipes,
  ) {}

  hold(): Promise<DatabaseConnection> {
    this.held ??= this.pool.acquireConnection();
    return this.held;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.held === null && isPlainRead(query.sql)) {
      const pipe = this.pipes.take();
      if (pipe !== undefined) return this.pipes.executeQuery<R>(pipe, query);
    }
    return (await this.hold()).executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.hold()).streamQuery<R>(query, chunkSize);
  }
}

const piping = (connection: DatabaseConnection) => connection as PipingConnection;

/** A PostgreSQL driver whose plain reads outside transactions go through `ReadPipes`. */
export class ReadPipingDriver implements Driver {
  constructor(
    private readonly pool: Driver,
    private readonly pipes: ReadPipes,
  ) {}

  init(): Promise<void> {
    return this.pool.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PipingConnection(this.pool, this.pipes);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.pool.beginTransaction(await piping(connection).hold(), settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.pool.commitTransaction(await piping(connection).hold());
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.pool.rollbackTransaction(await piping(connection).hold());
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.pool.savepoint!(await piping(connection).hold(), name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.pool.rollbackToSavepoint!(await piping(connection).hold(), name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.pool.releaseSavepoint!(await piping(connection).hold(), name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const { held } = piping(connection);
    piping(connection).held = null;
    // A connection the pool did not give (its wait timed out) is not given back.
    const pooled = await held?.catch(() => null);
    if (pooled) await this.pool.releaseConnection(pooled);
  }

  destroy(): Promise<void> {
    return this.pool.destroy();
  }
}
