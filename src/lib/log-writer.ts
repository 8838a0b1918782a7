import { fstatSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

const RETRY_MS = 20;
/**
 * What is held while the reader is behind, at most; lines beyond it are dropped and counted, and
 * a line saying how many follows once the reader has caught up. A log reader that stops must
 * not take the service's memory with it.
 */
const MAX_HELD_BYTES = 32 * 1024 * 1024;
/**
 * A write to a pipe of at most this many bytes is never split, nor mixed with another process's
 * writes (POSIX PIPE_BUF; Linux's value): a non-blocking one writes all of it or nothing. Linux
 * treats a write this small to a local stream socket the same way (one buffer, all or nothing).
 */
const PIPE_BUF = 4096;
const NEWLINE = 0x0a;

/** How long a flushSync waits for a reader that takes nothing, and for all of it at most. */
export interface Patience {
  withoutProgressMs: number;
  totalMs: number;
}
/** At exit: the process is ending, so a slow reader is worth a few seconds. */
export const AT_EXIT: Patience = { withoutProgressMs: 2_000, totalMs: 5_000 };
/** After a fatal line, while the process still serves: a moment, not a stall. */
export const AFTER_FATAL: Patience = { withoutProgressMs: 100, totalMs: 1_000 };

/** Writes bytes, returning how many were taken; throws EAGAIN when none could be now. */
export type WriteBytes = (bytes: Buffer) => number;

/**
 * Writes log text with synchronous, non-blocking writes: the descriptor takes what it can at
 * once, and the rest is tried again at the next hand-over or after 20 ms. Because every write's
 * result is known when it returns, the process can write exactly what is left when it exits.
 * (sonic-boom's asynchronous mode could not: a write it had in flight, or waiting to retry after
 * `EAGAIN`, was not written by its flushSync, and a pipe whose reader lagged at `process.exit`
 * lost those lines.) The descriptor must not block, or a stuck reader stalls every request: see
 * stdoutWriter.
 *
 * With `wholeLines` (a pipe or a socket), text goes in pieces of whole lines of at most PIPE_BUF
 * bytes, so the workers of one machine, which share standard output, never cut into each other's
 * lines, even when the reader is behind and writes are partial. A single line longer than that
 * is written on its own and can be cut then.
 */
export class LogWriter {
  /** Hand-overs not yet fully taken, oldest first; the first may be partly written. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private droppedLines = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private drainedCallbacks: Array<(err?: Error) => void> = [];

  constructor(
    private readonly writeBytes: WriteBytes,
    private readonly wholeLines = false,
  ) {}

  get idle(): boolean {
    return this.held.length === 0;
  }

  write(text: string): void {
    const bytes = Buffer.from(text);
    if (this.heldBytes + bytes.length > MAX_HELD_BYTES) {
      this.droppedLines += countLines(text);
      return;
    }
    this.held.push(bytes);
    this.heldBytes += bytes.length;
    // Tried at once even while a retry is pending: a reader that has caught up then gets all
    // of it now, and the writer never stays a timer behind a reader that reads fast.
    this.writeWhatFits();
  }

  /** Calls back once everything written so far has been taken by the descriptor. */
  flush(callback?: (err?: Error) => void): void {
    if (!callback) return;
    if (this.idle) process.nextTick(callback);
    else this.drainedCallbacks.push(callback);
  }

  /** Writes all that is held now, waiting for a slow reader within `patience`. */
  flushSync(patience: Patience = AT_EXIT): void {
    this.stopRetrying();
    const startedAt = Date.now();
    let lastProgressAt = startedAt;
    try {
      while (!this.idle) {
        if (this.writeOnce()) lastProgressAt = Date.now();
        else if (Date.now() - lastProgressAt > patience.withoutProgressMs || Date.now() - startedAt > patience.totalMs) break;
        else sleep(5);
      }
    } catch {
      this.dropAll();
    }
    this.afterWriting();
  }

  private writeWhatFits(): void {
    this.stopRetrying();
    try {
      while (!this.idle && this.writeOnce());
    } catch {
      this.dropAll();
    }
    this.afterWriting();
  }

  /** Retries what is held, or, once all is taken, reports drops and calls the flush callbacks. */
  private afterWriting(): void {
    if (!this.idle) {
      // Unreferenced: a process that ends on its own still writes the rest at exit.
      this.retryTimer ??= setTimeout(() => this.writeWhatFits(), RETRY_MS).unref();
      return;
    }
    if (this.droppedLines > 0) {
      const count = this.droppedLines;
      this.droppedLines = 0;
      this.write(droppedNotice(count));
      return;
    }
    const callbacks = this.drainedCallbacks;
    this.drainedCallbacks = [];
    // Not from inside this write: a callback that throws must not stop the writer or the others.
    for (const callback of callbacks) process.nextTick(callback);
  }

  /** One write; false when the descriptor took nothing now (EAGAIN). Other errors are thrown. */
  private writeOnce(): boolean {
    const first = this.held[0]!;
    let written: number;
    try {
      written = this.writeBytes(first.subarray(0, this.pieceLength(first)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return false;
      throw err;
    }
    this.heldBytes -= written;
    if (written === first.length) this.held.shift();
    else this.held[0] = first.subarray(written);
    return written > 0;
  }

  private pieceLength(bytes: Buffer): number {
    if (!this.wholeLines || bytes.length <= PIPE_BUF) return bytes.length;
    const lastNewline = bytes.lastIndexOf(NEWLINE, PIPE_BUF - 1);
    if (lastNewline >= 0) return lastNewline + 1;
    const endOfLongLine = bytes.indexOf(NEWLINE, PIPE_BUF);
    return endOfLongLine >= 0 ? endOfLongLine + 1 : bytes.length;
  }

  private stopRetrying(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** The reader is gone (EPIPE) or the descriptor closed: nothing held can be delivered. */
  private dropAll(): void {
    this.held = [];
    this.heldBytes = 0;
    this.droppedLines = 0;
  }
}

function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

/** A warning in pino's form (the writer sits below pino, so it writes the line itself). */
function droppedNotice(lines: number): string {
  const msg = `log output fell behind: ${lines} lines dropped`;
  return `{"level":40,"time":${Date.now()},"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"droppedLines":${lines},"msg":"${msg}"}\n`;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * The writer for standard output. When it is a pipe or a socket, as under a process manager or a
 * container runtime, it is made non-blocking first: Node has no fcntl, but opening process.stdout
 * on such a descriptor does it (libuv sets O_NONBLOCK when it opens a pipe or socket). A terminal
 * stays blocking, as Node keeps it, and a file never blocks for long.
 */
export function stdoutWriter(): LogWriter {
  const STDOUT = 1;
  const writeBytes = (bytes: Buffer) => writeSync(STDOUT, bytes);
  const stats = fstatSync(STDOUT);
  const shared = stats.isFIFO() || stats.isSocket();
  if (shared) void process.stdout;
  return new LogWriter(writeBytes, shared);
}
