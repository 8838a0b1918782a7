import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { createStorage } from '../db/index.js';
import { openStorage, printFirstStart, relayLeftovers, seedFirstStart } from './first-start.js';
import { scheduleChangePruning } from '../modules/changes/prune.js';
import { startWebhookWorker } from '../modules/webhooks/worker.js';
import { startMailWorker } from '../modules/mail/worker.js';
import { STOP_MESSAGE, stopGracefully } from './shutdown.js';

/**
 * 'single': this process migrates, seeds a first start and serves. 'worker': one of WORKERS
 * processes; the cluster primary has migrated and seeded, and holds the shared counters.
 */
export type ServeRole = 'single' | 'worker';

/**
 * Listens, and stops cleanly on SIGTERM/SIGINT: stops accepting, answers the requests in flight
 * (for at most SHUTDOWN_TIMEOUT_MS), closes storage and Redis, exits 0.
 */
export async function serve(config: Config, role: ServeRole = 'single'): Promise<FastifyInstance> {
  let stopWhenReady = false;
  let stop: (() => void) | undefined;
  if (role === 'worker') {
    // Asked to stop while still starting (a replacement for a worker that died): nothing to finish.
    process.on('message', (message) => {
      if (message !== STOP_MESSAGE) return;
      if (stop) stop();
      else stopWhenReady = true;
    });
  }
  const storage = role === 'single' ? await openStorage(config) : await createStorage(config);
  const account = role === 'single' ? await seedFirstStart(storage, config) : null;
  const app = await buildApp(config, { storage, localRateLimitStore: role === 'worker' ? 'cluster' : 'memory' });
  await app.listen({ port: config.port, host: config.host });
  // Show "listening" now, not with the next batch of log lines.
  (app.log as Logger).flush();
  if (account) printFirstStart(config, account, listeningPort(app, config));
  // The cluster primary relays leftovers itself, once, before it forks the workers.
  const leftovers = role === 'single' ? relayLeftovers(storage, app.log as Logger) : undefined;
  const pruning = scheduleChangePruning(storage, config.changesRetentionDays, (err) => app.log.warn({ err }, 'could not prune change records'));
  const webhooks = startWebhookWorker({
    storage,
    allowPrivate: config.webhooksAllowPrivate,
    schedule: config.webhookRetrySchedule,
    onError: (err) => app.log.warn({ err }, 'webhook deliveries: could not read or write their state'),
  });
  // Woken by this app's requests (the same hub), it sends their mail at once; held without SMTP_URL.
  const mail = startMailWorker({
    storage,
    hub: app.mailHub,
    onError: (err) => app.log.warn({ err }, 'mail: could not read or write the outbox'),
  });
  ({ stop } = stopGracefully(app.log as Logger, config.shutdownTimeoutMs, async () => {
    await Promise.all([pruning.stop(), webhooks.stop(), mail.stop()]);
    leftovers?.cancel();
    await app.close();
    await leftovers?.done;
    await storage.close();
  }));
  if (stopWhenReady) stop();
  return app;
}

function listeningPort(app: FastifyInstance, config: Config): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : config.port;
}
