import { spawn } from 'node:child_process';
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
});
