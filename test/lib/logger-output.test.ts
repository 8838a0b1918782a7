import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const LOGGER = new URL('../../dist/lib/logger.js', import.meta.url).href;

/**
 * The service's logger in a process of its own (the built code, as `npm start` runs it): lines
 * logged while it runs reach standard output without a further line to push them, and those
 * still held when the process exits on purpose are written before it ends, for every logger.
 */
const CHILD = `
import { createLogger } from ${JSON.stringify(LOGGER)};
const a = createLogger('info');
const b = createLogger('info');
a.info('first');
process.stdin.once('data', () => {
  a.info('last of a');
  b.info('last of b');
  process.exit(0);
});
`;

describe('the service logger', () => {
  it('writes a lone line soon after it is logged, and what is held at process.exit', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      // The child logs the rest only once the first line has arrived: without a timer handing
      // it over, it never does, and the test times out.
      if (!output.includes('"msg":"first"') && (output + chunk).includes('"msg":"first"')) child.stdin.write('go\n');
      output += chunk;
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    const lines = output.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; level: number });
    expect(lines.map((line) => line.msg)).toEqual(['first', 'last of a', 'last of b']);
    expect(lines.every((line) => line.level === 30)).toBe(true);
  }, 10_000);

  it('writes every line at process.exit to a pipe whose reader lags, in order', async () => {
    // process.stdout opened first makes the pipe non-blocking, as under many process managers.
    const child = spawnChild(`
      void process.stdout;
      const log = createLogger('info');
      for (let i = 0; i < 3000; i++) log.info({ i, padding: 'x'.repeat(200) }, 'line');
      process.exit(0);
    `);
    // A reader that pauses 20 ms after every chunk: the child exits long before it has read.
    let output = '';
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 20);
    });
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    const numbers = output.trim().split('\n').map((line) => (JSON.parse(line) as { i: number }).i);
    expect(numbers).toEqual(Array.from({ length: 3000 }, (_, i) => i));
  }, 20_000);

  it('goes on working while nothing reads its output, and writes it all once read', async () => {
    // 4 MB of lines, far more than a pipe or socket holds. A blocking write would stop the child
    // in its first full buffer, and the timer that reports back would never run.
    const child = spawnChild(`
      import { writeSync } from 'node:fs';
      const log = createLogger('info');
      for (let i = 0; i < 8000; i++) log.info({ i, padding: 'x'.repeat(440) }, 'line');
      setTimeout(() => writeSync(2, 'still running\\n'), 50);
      process.stdin.once('data', () => process.exit(0));
    `);
    child.stdout.pause();
    await new Promise<void>((resolve) => child.stderr.on('data', (chunk: string) => chunk.includes('still running') && resolve()));
    let output = '';
    child.stdout.on('data', (chunk: string) => (output += chunk));
    child.stdout.resume();
    child.stdin.write('go\n');
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    const numbers = output.trim().split('\n').map((line) => (JSON.parse(line) as { i: number }).i);
    expect(numbers).toEqual(Array.from({ length: 8000 }, (_, i) => i));
  }, 20_000);

  it('keeps running when the reader of its output goes away', async () => {
    const child = spawnChild(`
      import { writeSync } from 'node:fs';
      const log = createLogger('info');
      process.stdin.once('data', () => {
        for (let i = 0; i < 2000; i++) log.info({ i, padding: 'x'.repeat(440) }, 'line');
        setTimeout(() => {
          log.info('after the reader left');
          writeSync(2, 'still running\\n');
          process.exit(0);
        }, 300);
      });
    `);
    child.stdout.destroy();
    child.stdin.write('go\n');
    let errors = '';
    child.stderr.on('data', (chunk: string) => (errors += chunk));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(errors).toContain('still running\n');
    expect(code).toBe(0);
  }, 20_000);

  it('ends at exit, after a while, when its output is never read', async () => {
    // 4 MB that nobody reads: the exit waits for the reader a little (2 s without progress), then ends.
    const child = spawnChild(`
      const log = createLogger('info');
      for (let i = 0; i < 8000; i++) log.info({ i, padding: 'x'.repeat(440) }, 'line');
      process.exit(3);
    `);
    child.stdout.pause();
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(3);
    child.stdout.destroy();
  }, 20_000);

  it('never cuts into the lines of another process writing to the same pipe', async () => {
    // Two processes share one pipe as the workers of a cluster share standard output, and the
    // reader lags, so their writes are often partial.
    const dir = mkdtempSync(join(tmpdir(), 'groupadmin-fifo-'));
    const fifo = join(dir, 'out');
    execFileSync('mkfifo', [fifo]);
    const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeEnd = openSync(fifo, constants.O_WRONLY);
    const writers = ['a', 'b'].map((name) => {
      const source = `import { createLogger } from ${JSON.stringify(LOGGER)};
        const log = createLogger('info');
        for (let i = 0; i < 3000; i++) log.info({ w: '${name}', i, padding: 'x'.repeat(50 + ((i * 37) % 900)) }, 'line');
        process.exit(0);`;
      return spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['ignore', writeEnd, 'inherit'] });
    });
    const exitCodes = Promise.all(writers.map((writer) => new Promise((resolve) => writer.once('exit', resolve))));
    closeSync(writeEnd);
    const chunks: Buffer[] = [];
    try {
      for (;;) {
        const chunk = Buffer.alloc(32 * 1024);
        let read: number;
        try {
          read = readSync(readEnd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
          read = -1;
        }
        if (read === 0) break; // Both writers have exited.
        if (read > 0) chunks.push(chunk.subarray(0, read));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      closeSync(readEnd);
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await exitCodes).toEqual([0, 0]);
    const lines = Buffer.concat(chunks).toString('utf8').trim().split('\n').map((line) => JSON.parse(line) as { w: string; i: number });
    const expected = Array.from({ length: 3000 }, (_, i) => i);
    expect(lines.filter((line) => line.w === 'a').map((line) => line.i)).toEqual(expected);
    expect(lines.filter((line) => line.w === 'b').map((line) => line.i)).toEqual(expected);
  }, 30_000);
});

/** A process running `body` as an ES module with createLogger imported, its three streams piped. */
function spawnChild(body: string): ChildProcessWithoutNullStreams {
  const source = `import { createLogger } from ${JSON.stringify(LOGGER)};\n${body}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  return child;
}
