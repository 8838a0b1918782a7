import closeWithGrace from 'close-with-grace';
import type { Logger } from 'pino';

/**
 * The one way a process of the service stops (close-with-grace): on SIGTERM, SIGINT and the other
 * terminating signals, and on an error nothing caught, `close` runs once; the process exits 0 when
 * it has finished (1 after an error), and 1 when it takes longer than `timeoutMs` or a second
 * signal arrives.
 */
export function stopGracefully(log: Logger, timeoutMs: number, close: () => Promise<void>): { stop(): void } {
  let closing: Promise<void> | undefined;
  const { close: stop } = closeWithGrace(
    {
      delay: timeoutMs,
      // SIGTERM and SIGINT only, as a process manager and a terminal send them; a fault signal
      // (SIGSEGV, SIGBUS, ...) must still end the process at once, and the others keep their defaults.
      skip: ['SIGHUP', 'SIGQUIT', 'SIGILL', 'SIGTRAP', 'SIGABRT', 'SIGBUS', 'SIGFPE', 'SIGSEGV', 'SIGUSR2'],
      logger: { error: (err: unknown) => log.error({ err }, 'shutdown failed') },
      onTimeout: () => log.error({ timeoutMs }, 'shutdown timed out'),
      onSecondSignal: (signal) => log.error({ signal }, 'second signal while shutting down; exiting now'),
    },
    async ({ signal, err }) => {
      if (err) log.error({ err }, 'unexpected error; shutting down');
      else log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
      await (closing ??= close());
      log.flush();
    },
  );
  return { stop };
}

/** How the cluster primary asks a worker to stop (a signal could be its second, and end it at once). */
export const STOP_MESSAGE = 'groupadmin:stop';
