/**
 * Is this error the storage being unreachable or refusing for now (a network or server failure,
 * a locked or missing SQLite file), rather than a bug? Such requests are answered 503 with
 * Retry-After, and the service recovers by itself once the storage is back.
 */
const PG_UNAVAILABLE_CLASSES = ['08', '53', '57']; // connection exception, insufficient resources, operator intervention
const NODE_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|READONLY|FULL|PROTOCOL|NOTADB|CORRUPT)/;
// pg's words for a connection that can carry nothing more. `timeout expired`: pg's own connect
// timer (the read pipes' clients, db/read-pipes.ts); `Query read timeout`: a pipe's statement
// unanswered for its query_timeout.
const PG_CONNECTION_LOST = /Connection terminated|timeout expired|Query read timeout|Client has encountered a connection error|connection is closed/i;
// And for refusing for now. The last: a prepared statement whose table a migration changed under
// a running instance, in a transaction that it aborted; the next try sends it unnamed
// (db/prepared-client.ts). `Client was closed`: a read sent while the service shuts down.
const PG_CLIENT_MESSAGES =
  /timeout exceeded when trying to connect|Client was closed|is not currently accepting connections|cached plan must not change result type/i;
/** A lock not granted within lock_timeout (the read pipes set one): refusing for now. */
const PG_LOCK_NOT_AVAILABLE = '55P03';

export function isStorageUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NODE_NETWORK_CODES.has(code) || SQLITE_UNAVAILABLE.test(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && PG_UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return true;
    if (code === PG_LOCK_NOT_AVAILABLE) return true;
  }
  if (typeof message === 'string' && (PG_CONNECTION_LOST.test(message) || PG_CLIENT_MESSAGES.test(message))) return true;
  // An AggregateError (several addresses tried) is unavailable when its parts are.
  const parts = (error as { errors?: unknown }).errors;
  return Array.isArray(parts) && parts.length > 0 && parts.every(isStorageUnavailable);
}

/**
 * Is this error the loss of the connection itself (the server ended it, the network failed, a
 * statement went unanswered too long), after which nothing more can be sent on it? Narrower than
 * isStorageUnavailable: a cancelled statement or a lock wait leaves the connection usable.
 */
export function isConnectionLost(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NODE_NETWORK_CODES.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code))) return true;
  return typeof message === 'string' && PG_CONNECTION_LOST.test(message);
}

/** What a client is told to wait before retrying, while storage is away. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * Is this error an insert or update refused by a unique index or key: any (the primary key too),
 * or one of `indexes`? PostgreSQL names the index (23505); SQLite names columns, not indexes,
 * so there any unique index but the primary key counts: name indexes only of a table with no
 * other unique one.
 */
export function isUniqueViolation(error: unknown, ...indexes: string[]): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  if (indexes.length === 0) return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  return (code === '23505' && typeof constraint === 'string' && indexes.includes(constraint)) || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Is this error a write refused by a foreign key (the row it points to is gone)? */
export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as { code?: unknown };
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
