import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from '../app.js';
import { openStorage, printFirstStart, seedFirstStart } from './first-start.js';
import type { Config } from '../config.js';
import { createStorage } from '../db/index.js';

export interface RunningServer {
  app: FastifyInstance;
  stop(): Promise<void>;
}

/**
 * 'single': this process migrates, seeds a first start and serves. 'worker': one of WORKERS
 * processes; the cluster primary has migrated and seeded, and holds the shared counters.
 */
export type ServeRole = 'single' | 'worker';

/**
 * Listens, and stops cleanly on SIGTERM/SIGINT: stops accepting, answers the requests in flight
 * (for at most SHUTDOWN_TIMEOUT_MS), closes storage and Redis, exits 0.
 */
export async function serve(config: Config, role: ServeRole = 'single'): Promise<RunningServer> {
  const storage = role === 'single' ? await openStorage(config) : await createStorage(config);
  const account = role === 'single' ? await seedFirstStart(storage, config) : null;
  const app = await buildApp(config, { storage, localRateLimitStore: role === 'worker' ? 'cluster' : 'memory' });
  await app.listen({ port: config.port, host: config.host });
  // Show "listening" now, not with the next batch of log lines.
  (app.log as Logger).flush();
  if (account) printFirstStart(config, account, listeningPort(app, config));

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close();
      await storage.close();
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    // Requests still running after SHUTDOWN_TIMEOUT_MS are cut off.
    setTimeout(() => {
      app.log.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown timed out');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return { app, stop };
}

function listeningPort(app: FastifyInstance, config: Config): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : config.port;
}
