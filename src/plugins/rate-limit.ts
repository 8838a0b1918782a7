import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';
import type { RateLimits } from '../rate-limit/limiter.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route is not counted (documentation). */
    rateLimit?: boolean;
  }
}

/**
 * Counts every request under /api (decisions.md section 6): against the user with a valid token,
 * else against tenant + client address. Runs in onRequest, before the body is read or a password
 * is hashed, so a rejected login costs nothing. Every answer carries the X-RateLimit-* headers.
 */
export default fp<{ limits: RateLimits }>(
  async function rateLimit(app: FastifyInstance, { limits }) {
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config?.rateLimit === false) return;
      const tenant = request.tenant?.slug ?? '-';
      const decision = request.auth
        ? await limits.consume('user', `${tenant}:${request.auth.user.id}`)
        : await limits.consume('address', `${tenant}:${request.ip}`);
      reply.header('x-ratelimit-limit', decision.limit);
      reply.header('x-ratelimit-remaining', decision.remaining);
      reply.header('x-ratelimit-reset', decision.resetAtSeconds);
      if (!decision.allowed) {
        throw new ApiError('too_many_attempts', 'Too Many Attempts.', { retryAfterSeconds: decision.retryAfterSeconds });
      }
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
