import { CompiledQuery, type DatabaseConnection, type Driver, type QueryCompiler, type QueryResult, type TransactionSettings } from 'kysely';
import type { OutboxRow } from './queries.js';

/**
 * Statements that may change rows. Read by their text, not by the rows they report: an UPDATE
 * with RETURNING reports rows, not a count, on SQLite. A WITH that only reads is counted as a
 * write (the role memory reads again; see MAY_ANNOUNCE for the outbox), nothing more.
 */
const WRITE = /^\s*(insert|update|delete|replace|merge|with)\b/i;

/**
 * The one statement that writes to a tenant database without changing anything a cache holds:
 * the relay's own clean-up of the outbox (see relay.ts). Noticing it would only relay again.
 */
const isOutboxCleanup = (query: CompiledQuery): boolean =>
  query.sql.startsWith('delete from') && query.sql.includes('"cache_changes"');

/**
 * Statements that may announce a change: only updates and deletions of users and tokens do
 * (their triggers write the outbox, migration 2026-11-23T10-00-00, and nothing cascades into
 * those tables). Read by their text, and generously: any statement that names either table (on
 * PostgreSQL `"tenant_x"."users"`; a schema `tenant_users` does not count, `_` being part of a word).
 * A write that names neither (a registration, a group, a change record) has nothing to read
 * from the outbox, before its commit or after it.
 */
const MAY_ANNOUNCE = /\b(users|personal_access_tokens)\b/i;

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

/**
 * A connection that notices writes, and reads the outbox just before they commit: what it reads
 * then holds this connection's own changes for certain (another process may relay and delete them
 * the moment they are committed, and this process must still forget them at once).
 */
class WatchedConnection implements DatabaseConnection {
  wrote = false;
  /** A write of this connection may have announced a change (MAY_ANNOUNCE). */
  mayAnnounce = false;
  inTransaction = false;
  /** The outbox as this connection's last write saw it before committing. */
  seen: OutboxRow[] = [];

  constructor(
    readonly inner: DatabaseConnection,
    private readonly outbox: CompiledQuery,
    private readonly watching: () => boolean,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const watched = WRITE.test(query.sql) && !isOutboxCleanup(query) && this.watching();
    if (!watched) return this.inner.executeQuery<R>(query);
    const announces = MAY_ANNOUNCE.test(query.sql);
    if (this.inTransaction || !announces) {
      const result = await this.inner.executeQuery<R>(query);
      this.wrote = true;
      if (announces) this.mayAnnounce = true;
      return result;
    }
    // A write on its own: in a transaction of its own, so that its outbox rows can be read first.
    await this.inner.executeQuery(BEGIN);
    try {
      const result = await this.inner.executeQuery<R>(query);
      await this.readOutbox();
      await this.inner.executeQuery(COMMIT);
      this.wrote = true;
      this.mayAnnounce = true;
      return result;
    } catch (err) {
      await this.inner.executeQuery(ROLLBACK).catch(() => undefined);
      throw err;
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }

  async readOutbox(): Promise<void> {
    this.seen.push(...(await this.inner.executeQuery<OutboxRow>(this.outbox)).rows);
  }
}

/**
 * Wraps a tenant database's driver so that, whenever a connection that changed rows is given
 * back (after its transaction committed or rolled back, or after a single statement), the write
 * is counted and, when it may have announced a change (MAY_ANNOUNCE), the tenant's outbox is
 * relayed, before the write's caller goes on. Every write path, however it is written, passes
 * here: no route or command announces a change by hand.
 */
export class WriteWatchingDriver implements Driver {
  private readonly outbox: CompiledQuery;

  constructor(
    private readonly inner: Driver,
    /** The outbox's name as SQL: "cache_changes", or "<schema>"."cache_changes". */
    outboxTable: string,
    /**
     * Runs after a connection that wrote was released, with the outbox rows it saw before its
     * commit (its own among them), and whether any of its writes may have announced a change;
     * its promise is awaited by the writer.
     */
    private readonly afterWrites: (seen: OutboxRow[], mayAnnounce: boolean) => Promise<void>,
    /** False while the database is being migrated: the outbox may not exist yet. */
    private readonly watching: () => boolean = () => true,
  ) {
    this.outbox = CompiledQuery.raw(`select id, user_id, token_id from ${outboxTable} order by id`);
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WatchedConnection(await this.inner.acquireConnection(), this.outbox, this.watching);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(innerOf(connection), settings);
    watched(connection).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const watchedConnection = watched(connection);
    if (watchedConnection.mayAnnounce) await watchedConnection.readOutbox();
    watchedConnection.inTransaction = false;
    await this.inner.commitTransaction(innerOf(connection));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const watchedConnection = watched(connection);
    watchedConnection.inTransaction = false;
    watchedConnection.wrote = false;
    watchedConnection.mayAnnounce = false;
    await this.inner.rollbackTransaction(innerOf(connection));
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return savepointStep(this.inner.savepoint, this.inner, connection, name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return savepointStep(this.inner.rollbackToSavepoint, this.inner, connection, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return savepointStep(this.inner.releaseSavepoint, this.inner, connection, name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const { wrote, mayAnnounce, seen } = watched(connection);
    // Given back first: on SQLite the relay needs the file's only connection.
    await this.inner.releaseConnection(innerOf(connection));
    if (wrote) await this.afterWrites(seen, mayAnnounce);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

const watched = (connection: DatabaseConnection): WatchedConnection => connection as WatchedConnection;
const innerOf = (connection: DatabaseConnection): DatabaseConnection => watched(connection).inner;

type SavepointStep = Driver['savepoint'];

function savepointStep(
  step: SavepointStep,
  inner: Driver,
  connection: DatabaseConnection,
  name: string,
  compile: QueryCompiler['compileQuery'],
): Promise<void> {
  if (!step) throw new Error('The driver does not support savepoints');
  return step.call(inner, innerOf(connection), name, compile);
}
