import pino, { type Logger } from 'pino';

const FLUSH_INTERVAL_MS = 250;

type Destination = ReturnType<typeof pino.destination>;
const destinations = new Set<Destination>();
let flushOnExit = false;

/**
 * The service's JSON logger. Lines are buffered and written in batches (at 4 KiB, every 250 ms,
 * and when the app closes): one write per request would cost a system call on the hot path.
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), FLUSH_INTERVAL_MS).unref();
  destinations.add(destination);
  if (!flushOnExit) {
    flushOnExit = true;
    // A process that exits on purpose (process.exit) still writes out what it logged.
    process.once('exit', () => {
      for (const pending of destinations) {
        try {
          pending.flushSync();
        } catch {
          // Nothing buffered, or the stream is gone: there is nothing left to save.
        }
      }
    });
  }
  return pino({ level }, destination);
}
