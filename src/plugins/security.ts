import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';

export interface SecurityOptions {
  corsOrigins: string[];
  requireHttps: boolean;
}

/** Paths a load balancer probes over plain HTTP inside the network; they carry no data. */
const PROBES = new Set(['/health', '/ready']);

/**
 * Security headers for a JSON API (nothing may be framed, scripted or sniffed), CORS only for
 * the configured origins, and, with REQUIRE_HTTPS, a refusal of plain HTTP before any credential
 * is read.
 */
export default fp<SecurityOptions>(
  async function security(app: FastifyInstance, { corsOrigins, requireHttps }) {
    if (requireHttps) {
      app.addHook('onRequest', async (request) => {
        if (request.protocol !== 'https' && !PROBES.has(request.url.split('?')[0] ?? '')) {
          throw new ApiError('https_required', 'HTTPS required.');
        }
      });
    }
    await app.register(helmet, {
      global: true,
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      crossOriginResourcePolicy: { policy: corsOrigins.length > 0 ? 'cross-origin' : 'same-origin' },
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    });
    if (corsOrigins.length > 0) {
      await app.register(cors, {
        origin: corsOrigins,
        methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
        allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id'],
        exposedHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'X-Request-Id'],
        credentials: false,
        maxAge: 600,
      });
    }
  },
  { name: 'security', dependencies: ['error-handler'] },
);
