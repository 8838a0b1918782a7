import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { createStorage } from '../db/index.js';
import type { Storage } from '../db/storage.js';
import { listAllTenants } from '../modules/tenants/rules.js';
import { openStorage, printFirstStart, seedFirstStart } from './first-start.js';
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
  const storage = role === 'single' ? await openStorage(config) : await createStorage(config);
  const account = role === 'single' ? await seedFirstStart(storage, config) : null;
  const app = await buildApp(config, { storage, localRateLimitStore: role === 'worker' ? 'cluster' : 'memory' });
  await app.listen({ port: config.port, host: config.host });
  // Show "listening" now, not with the next batch of log lines.
  (app.log as Logger).flush();
  if (account) printFirstStart(config, account, listeningPort(app, config));
  const { stop } = stopGracefully(app.log as Logger, config.shutdownTimeoutMs, async () => {
    await app.close();
    await storage.close();
  });
  if (role === 'worker') process.on('message', (message) => message === STOP_MESSAGE && stop());
  void relayLeftovers(storage, app.log as Logger);
  return app;
}

/**
 * A process that died between a commit and its relay left the change in the tenant's outbox:
 * relayed here, in the background, once per start (and by the next write to that tenant anyway;
 * until then the other instances re-read a remembered token row at most TOKEN_ROW_MAX_AGE_MS old).
 */
async function relayLeftovers(storage: Storage, log: Logger): Promise<void> {
  try {
    for (const tenant of await listAllTenants(storage)) await storage.invalidations.relay(tenant.slug);
    await storage.invalidations.retryPending();
  } catch (err) {
    log.warn({ err }, 'could not relay the cache changes left by an earlier process; the feed retries them');
  }
}

function listeningPort(app: FastifyInstance, config: Config): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : config.port;
}
