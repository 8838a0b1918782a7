import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyRequestLogger, writeInfoLine } from '../../src/lib/logger.js';

/** A pino logger writing into an array, as the service's logger writes to standard output. */
function capture(level = 'info') {
  const lines: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(line) });
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');

describe('the access line writer', () => {
  it('writes exactly the line pino writes for the same fields', () => {
    const { logger, lines } = capture();
    const fields = { reqId: 'r-1', method: 'GET', route: null, path: '/api/"quoted"\\\u2028', tenant: 'demo', status: 200, ms: 0.43 };
    logger.info(fields, 'request');
    writeInfoLine(logger, JSON.stringify(fields).slice(1, -1), 'request');
    expect(lines).toHaveLength(2);
    expect(withoutTime(lines[1]!)).toBe(withoutTime(lines[0]!));
  });

  it('writes nothing when info is below the level', () => {
    const { logger, lines } = capture('warn');
    writeInfoLine(logger, '"status":200', 'request');
    expect(lines).toEqual([]);
  });
});

describe('the lazy request logger', () => {
  it('logs with the request bindings, making the child only when used', () => {
    const { logger, parsed } = capture();
    let children = 0;
    const counting = Object.assign(Object.create(logger) as typeof logger, {
      child: (...args: Parameters<typeof logger.child>) => {
        children++;
        return logger.child(...args);
      },
    });
    const requestLogger = lazyRequestLogger(counting, { reqId: 'r-2' }, {});
    expect(requestLogger.level).toBe('info');
    expect(children).toBe(0);
    requestLogger.warn({ detail: 1 }, 'careful');
    requestLogger.error('broken');
    expect(children).toBe(1);
    expect(parsed()).toMatchObject([
      { level: 40, reqId: 'r-2', detail: 1, msg: 'careful' },
      { level: 50, reqId: 'r-2', msg: 'broken' },
    ]);
  });
});
