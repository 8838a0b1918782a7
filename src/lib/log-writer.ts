import { fstatSync, writeSync } from 'node:fs';

const RETRY_MS = 20;
/** At exit, how long a reader that takes nothing is waited for before what is left is given up. */
const EXIT_PATIENCE_MS = 2_000;
const EXIT_WAIT_STEP_MS = 5;
/**
 * A write to a pipe of at most this many bytes is never split, nor mixed with another process's
 * writes (POSIX PIPE_BUF; Linux's value): a non-blocking one writes all of it or nothing.
 */
const PIPE_BUF = 4096;
const NEWLINE = 0x0a;

/**
 * Writes text to a file descriptor with synchronous, non-blocking writes: the descriptor takes
 * what it can at once, and the rest is tried again every 20 ms. Because every write's result is
 * known when it returns, the process can write exactly what is left when it exits. (sonic-boom's
 * asynchronous mode could not: a write it had in flight, or waiting to retry after `EAGAIN`, was
 * not written by its flushSync, and a pipe whose reader lagged at `process.exit` lost those lines.)
 *
 * The descriptor must not block, or a stuck reader stalls every request: see stdoutWriter.
 *
 * To a pipe, text goes in pieces of whole lines of at most PIPE_BUF bytes, so the workers of one
 * machine, which share standard output, never cut into each other's lines, even when the reader
 * is behind and writes are partial. (A single line longer than that is written on its own.)
 */
export class FdWriter {
  /** Bytes the descriptor has not taken yet, written before anything queued after them. */
  private unwritten: Buffer | undefined;
  private queued = '';
  private retryTimer: NodeJS.Timeout | undefined;
  private drainedCallbacks: Array<(err?: Error) => void> = [];

  constructor(
    private readonly fd: number,
    /** Writes whole lines of at most PIPE_BUF bytes at a time (the descriptor is a pipe). */
    private readonly wholeLines = false,
  ) {}

  get idle(): boolean {
    return this.unwritten === undefined && this.queued === '';
  }

  write(text: string): void {
    this.queued += text;
    // While a retry is pending the reader is behind: the retry writes this too.
    if (this.retryTimer === undefined) this.writeWhatFits();
  }

  /** Calls back once everything written so far has been taken by the descriptor. */
  flush(callback?: (err?: Error) => void): void {
    if (!callback) return;
    if (this.idle) process.nextTick(callback);
    else this.drainedCallbacks.push(callback);
  }

  /** At exit: writes all that is left, waiting for a slow reader as long as it keeps reading. */
  flushSync(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    let lastProgress = Date.now();
    while (!this.idle) {
      if (this.writeOnce()) lastProgress = Date.now();
      else if (Date.now() - lastProgress > EXIT_PATIENCE_MS) return;
      else sleep(EXIT_WAIT_STEP_MS);
    }
  }

  private writeWhatFits(): void {
    this.retryTimer = undefined;
    try {
      while (!this.idle && this.writeOnce());
    } catch {
      // The reader is gone (EPIPE) or the descriptor closed: nothing held can be delivered.
      this.unwritten = undefined;
      this.queued = '';
    }
    if (!this.idle) {
      // Unreferenced: a process that ends on its own still writes the rest at exit.
      this.retryTimer = setTimeout(() => this.writeWhatFits(), RETRY_MS).unref();
      return;
    }
    const callbacks = this.drainedCallbacks;
    this.drainedCallbacks = [];
    for (const callback of callbacks) callback();
  }

  /** One write; false when the descriptor took nothing now (EAGAIN). Other errors are thrown. */
  private writeOnce(): boolean {
    if (this.unwritten === undefined) {
      this.unwritten = Buffer.from(this.queued);
      this.queued = '';
    }
    let written: number;
    try {
      written = writeSync(this.fd, this.unwritten, 0, this.pieceLength(this.unwritten));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return false;
      throw err;
    }
    this.unwritten = written < this.unwritten.length ? this.unwritten.subarray(written) : undefined;
    return written > 0;
  }

  private pieceLength(bytes: Buffer): number {
    if (!this.wholeLines || bytes.length <= PIPE_BUF) return bytes.length;
    const lastNewline = bytes.lastIndexOf(NEWLINE, PIPE_BUF - 1);
    if (lastNewline >= 0) return lastNewline + 1;
    const endOfLongLine = bytes.indexOf(NEWLINE, PIPE_BUF);
    return endOfLongLine >= 0 ? endOfLongLine + 1 : bytes.length;
  }
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
export function stdoutWriter(): FdWriter {
  const STDOUT = 1;
  let stats;
  try {
    stats = fstatSync(STDOUT);
  } catch {
    return new FdWriter(STDOUT);
  }
  if (stats.isFIFO() || stats.isSocket()) void process.stdout;
  return new FdWriter(STDOUT, stats.isFIFO());
}
