import cluster, { type Worker } from 'node:cluster';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import { openStorage, printFirstStart, relayLeftovers, seedFirstStart } from './first-start.js';
import type { Config } from '../config.js';
import { createLogger } from '../lib/logger.js';
import { STOP_MESSAGE, stopGracefully } from './shutdown.js';

/**
 * WORKERS > 1: this primary process migrates and seeds once, keeps the rate-limit counters that
 * workers share when there is no Redis, forks the workers (they share one port), replaces a
 * worker that dies, and on SIGTERM/SIGINT lets every worker finish its requests before exiting.
 */
export async function runPrimary(config: Config): Promise<void> {
  // The workers' logger: the primary's lines share their standard output on the same terms.
  const log = createLogger(config.logLevel);
  const storage = await openStorage(config);
  const account = await seedFirstStart(storage, config);
  await relayLeftovers(storage, log).done;
  await storage.close();

  // Receives the workers' counting messages; must exist before the first worker asks.
  new RateLimiterClusterMaster();

  let stopping = false;
  let announced = false;
  cluster.on('listening', (_worker, address) => {
    if (announced) return;
    announced = true;
    log.info({ workers: config.workers, port: address.port }, `${config.workers} workers listening`);
    // Show "listening" now, not with the next batch of log lines.
    log.flush();
    if (account) printFirstStart(config, account, address.port);
  });
  cluster.on('exit', (worker: Worker, code, signal) => {
    if (stopping) return;
    log.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
    cluster.fork();
  });

  // Each worker bounds its own shutdown by SHUTDOWN_TIMEOUT_MS; the primary's bound is the backstop.
  stopGracefully(log, config.shutdownTimeoutMs + 5000, async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    const exited = workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve)));
    for (const worker of workers) worker.send(STOP_MESSAGE);
    await Promise.all(exited);
  });

  for (let i = 0; i < config.workers; i++) cluster.fork();
}
