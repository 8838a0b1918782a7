import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Storage } from '../../db/storage.js';
import { errors } from '../../errors.js';
import { watchMaintenance } from './rules.js';

/** Every instance sees `groupadmin down` / `up` within this time. */
const MAINTENANCE_POLL_MS = 500;

/**
 * Maintenance mode (groupadmin down): every request in this context answers 503 before anything
 * else is looked at. The flag is read from the registry twice a second, never per request.
 */
export default fp<{ storage: Storage }>(
  async function maintenance(app: FastifyInstance, { storage }) {
    const watcher = await watchMaintenance(storage, {
      intervalMs: MAINTENANCE_POLL_MS,
      onError: (err) => app.log.warn({ err }, 'could not read the maintenance flag; keeping the last known state'),
    });
    app.addHook('onClose', async () => watcher.stop());
    app.addHook('onRequest', (_request, _reply, done) => {
      const down = watcher.current();
      if (!down) return done();
      done(errors.serviceUnavailable(down.retryAfterSeconds ?? undefined, down.message ?? undefined));
    });
  },
  { name: 'maintenance', dependencies: ['error-handler'] },
);
