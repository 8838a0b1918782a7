import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { MaintenanceWatcher } from '../domain/maintenance.js';
import { ApiError } from '../errors.js';

/** Maintenance mode (groupadmin down): every request here answers 503 before anything else is looked at. */
export default fp<{ watcher: MaintenanceWatcher }>(
  async function maintenance(app: FastifyInstance, { watcher }) {
    app.addHook('onRequest', (_request, _reply, done) => {
      const down = watcher.current();
      if (!down) return done();
      const retry = down.retryAfterSeconds === null ? {} : { retryAfterSeconds: down.retryAfterSeconds };
      done(new ApiError('service_unavailable', down.message ?? 'Service Unavailable', retry));
    });
  },
  { name: 'maintenance', dependencies: ['error-handler'] },
);
