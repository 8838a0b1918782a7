import type { FastifyInstance } from 'fastify';
import { STORAGE_RETRY_AFTER_SECONDS } from '../db/errors.js';
import type { Storage } from '../db/storage.js';
import { errors } from '../errors.js';

/** Liveness and readiness for load balancers: on any host, no tenant, not rate-limited. */
export default async function healthRoutes(app: FastifyInstance, { storage }: { storage: Storage }) {
  app.get('/health', async () => ({ success: true, message: 'alive' }));
  app.get('/ready', async (request) => {
    try {
      await storage.ping();
    } catch (err) {
      request.log.warn({ err }, 'storage is not reachable');
      throw errors.serviceUnavailable(STORAGE_RETRY_AFTER_SECONDS);
    }
    return { success: true, message: 'ready' };
  });
}
