import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A real pino logger whose JSON lines the test can read back. */
export function capturingLogger(level = 'info'): { logger: Logger; lines: () => Record<string, unknown>[]; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const logger = pino({ level }, stream);
  return {
    logger,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
