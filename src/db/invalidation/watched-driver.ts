import type { CompiledQuery, DatabaseConnection, Driver, QueryCompiler, QueryResult, TransactionSettings } from 'kysely';

/**
 * Statements that may change rows. Read by their text, not by the rows they report: an UPDATE
 * with RETURNING reports rows, not a count, on SQLite. A WITH that only reads costs one extra
 * look at the outbox, nothing more.
 */
const WRITE = /^\s*(insert|update|delete|replace|merge|with)\b/i;

/**
 * The one statement that writes to a tenant database without changing anything a cache holds:
 * the relay's own clean-up of the outbox (see relay.ts). Noticing it would only relay again.
 */
const isOutboxCleanup = (query: CompiledQuery): boolean =>
  query.sql.startsWith('delete from') && query.sql.includes('"cache_changes"');

/** A connection that remembers whether a statement that may change rows ran on it. */
class WatchedConnection implements DatabaseConnection {
  wrote = false;
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.wrote && WRITE.test(query.sql) && !isOutboxCleanup(query)) this.wrote = true;
    return this.inner.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Wraps a tenant database's driver so that, whenever a connection that changed rows is given
 * back (after its transaction committed or rolled back, or after a single statement), the
 * tenant's outbox is relayed before the write's caller goes on. Every write path, however it is
 * written, passes here: no route or command announces a change by hand.
 */
export class WriteWatchingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    /** Runs after a connection that wrote was released; its promise is awaited by the writer. */
    private readonly afterWrites: () => Promise<void>,
    /** False while the database is being migrated: the outbox may not exist yet. */
    private readonly watching: () => boolean = () => true,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WatchedConnection(await this.inner.acquireConnection());
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(innerOf(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(innerOf(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(innerOf(connection));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint?.(innerOf(connection), name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint?.(innerOf(connection), name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint?.(innerOf(connection), name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // Given back first: on SQLite the relay needs the file's only connection.
    await this.inner.releaseConnection(innerOf(connection));
    if ((connection as WatchedConnection).wrote && this.watching()) await this.afterWrites();
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

const innerOf = (connection: DatabaseConnection): DatabaseConnection => (connection as WatchedConnection).inner;
