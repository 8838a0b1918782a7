import cluster, { type Worker } from 'node:cluster';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import pino from 'pino';
import { openStorage, printFirstStart, seedFirstStart } from './first-start.js';
import type { Config } from '../config.js';


/**
 * WORKERS > 1: this primary process migrates and seeds once, keeps the rate-limit counters that
 * workers share when there is no Redis, forks the workers (they share one port), replaces a
 * worker that dies, and on SIGTERM/SIGINT lets every worker finish its requests before exiting.
 */
export async function runPrimary(config: Config): Promise<void> {
  const log = pino({ level: config.logLevel });
  const storage = await openStorage(config);
  const account = await seedFirstStart(storage, config);
  await storage.close();

  // Receives the workers' counting messages; must exist before the first worker asks.
  new RateLimiterClusterMaster();

  let stopping = false;
  let announced = false;
  cluster.on('listening', (_worker, address) => {
    if (announced) return;
    announced = true;
    log.info({ workers: config.workers, port: address.port }, `${config.workers} workers listening`);
    if (account) printFirstStart(config, account, address.port);
  });
  cluster.on('exit', (worker: Worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    log.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
    cluster.fork();
  });

  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down workers');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    setTimeout(() => {
      log.error('workers did not stop in time');
      process.exit(1);
      // Each worker bounds its own shutdown by SHUTDOWN_TIMEOUT_MS; this is the backstop.
    }, config.shutdownTimeoutMs + 5000).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  for (let i = 0; i < config.workers; i++) cluster.fork();
}
