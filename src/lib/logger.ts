import type { FastifyBaseLogger } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions, type Logger } from 'pino';
import { AFTER_FATAL, AT_EXIT, stdoutWriter, type LogWriter } from './log-writer.js';

// HOT PATH (see docs/architecture.md): log lines handed over in batches.

const FLUSH_INTERVAL_MS = 250;
const WRITE_AT_LENGTH = 64 * 1024;

/**
 * Collects log lines and writes them about 64 KiB at a time: one write per request would cost a
 * system call on the hot path (with one line per request, 2.4 % of a GET /api/user profile; with
 * 4 KiB batches handed to sonic-boom's asynchronous writes still about 2 us of a request's 37-41 us
 * of server CPU: PostgreSQL + Redis, 50 connections, seven alternating pairs, mean 38.6 -> 36.6 us).
 */
class LineBatcher {
  // Appending makes a rope, flattened once when handed over.
  private pending = '';
  constructor(private readonly target: LogWriter) {}

  write(line: string): boolean {
    if (this.pending === '') holdingLines(this);
    this.pending += line;
    if (this.pending.length >= WRITE_AT_LENGTH) this.handOver();
    return true;
  }

  /** pino's logger.flush(cb) lands here. */
  flush(callback?: (err?: Error) => void): void {
    this.handOver();
    this.target.flush(callback);
  }

  /** All of it, synchronously: pino calls this after a fatal line. */
  flushSync(): void {
    this.handOver();
    this.target.flushSync(AFTER_FATAL);
  }

  /** Hands over what it holds; the one timer below calls it within 250 ms of the first line. */
  handOver(): void {
    if (this.pending === '') return;
    this.target.write(this.pending);
    this.pending = '';
  }
}

/**
 * The batchers holding lines, and one timer for all of them while any does. A batcher with
 * nothing to write is held by its logger alone, so a closed app's logger goes with the app.
 */
const holding = new Set<LineBatcher>();
let handOverTimer: NodeJS.Timeout | undefined;
/** The one writer to standard output, shared by every logger so their lines never interleave. */
let stdout: LogWriter | undefined;

function holdingLines(batcher: LineBatcher): void {
  holding.add(batcher);
  handOverTimer ??= setTimeout(handOverAll, FLUSH_INTERVAL_MS).unref();
}

function handOverAll(): void {
  handOverTimer = undefined;
  const batchers = [...holding];
  holding.clear();
  for (const batcher of batchers) batcher.handOver();
}

function standardOutput(): LogWriter {
  if (stdout) return stdout;
  const writer = stdoutWriter();
  // A process that exits on purpose (process.exit) or on its own still writes out what it logged.
  // Neither step throws: the writer drops what it cannot deliver.
  process.once('exit', () => {
    for (const pending of holding) pending.handOver();
    writer.flushSync(AT_EXIT);
  });
  return (stdout = writer);
}

/**
 * The service's JSON logger. Lines are buffered and written in batches (at 64 KiB, within 250 ms,
 * when the app closes, and at exit).
 */
export function createLogger(level: string): Logger {
  return pino({ level }, new LineBatcher(standardOutput()));
}

/**
 * A request's logger, made from its parent only when something logs through it. Most requests
 * log nothing but their one access line, which is written with the request id as a field, so
 * building a child logger (and its bindings) for every request was wasted work.
 */
class LazyChildLogger {
  private made: FastifyBaseLogger | undefined;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  // Methods on the prototype, not arrow fields: one of these is made for every request, and
  // seven closures each would be most of its weight.
  fatal(...args: unknown[]) {
    call(this.logger, 'fatal', args);
  }
  error(...args: unknown[]) {
    call(this.logger, 'error', args);
  }
  warn(...args: unknown[]) {
    call(this.logger, 'warn', args);
  }
  info(...args: unknown[]) {
    call(this.logger, 'info', args);
  }
  debug(...args: unknown[]) {
    call(this.logger, 'debug', args);
  }
  trace(...args: unknown[]) {
    call(this.logger, 'trace', args);
  }
  silent() {}
  child(bindings: Bindings, options?: ChildLoggerOptions) {
    return this.logger.child(bindings, options);
  }
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
const call = (logger: FastifyBaseLogger, level: LevelName, args: unknown[]) =>
  (logger[level] as (...args: unknown[]) => void).apply(logger, args);

/** Fastify's childLoggerFactory: a LazyChildLogger per request. */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}

interface PinoInternals {
  [pino.symbols.chindingsSym]?: string;
  [pino.symbols.streamSym]?: { write(line: string): unknown };
}

/**
 * Writes one info line in exactly the form pino gives it ({"level":30,"time":..,"pid":..,
 * "hostname":..,<fields>,"msg":..}), straight to the logger's stream. `fields` is the JSON of the
 * line's own fields without braces. For the access line only, written once per request: pino's
 * generic path (key iteration, escaping each value) cost about four times as much (profile:
 * requestCompleted 2.8 us of a request). Other loggers get an ordinary call.
 */
export function writeInfoLine(logger: FastifyBaseLogger, fields: string, msg: string): void {
  const internals = logger as unknown as PinoInternals & Partial<Pick<Logger, 'isLevelEnabled'>>;
  const stream = internals[pino.symbols.streamSym];
  const bindings = internals[pino.symbols.chindingsSym];
  if (!stream || bindings === undefined || !internals.isLevelEnabled) {
    logger.info(JSON.parse(`{${fields}}`) as object, msg);
    return;
  }
  if (!internals.isLevelEnabled('info')) return;
  stream.write(`{"level":30,"time":${Date.now()}${bindings},${fields},"msg":${JSON.stringify(msg)}}\n`);
}
