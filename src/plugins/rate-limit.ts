import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';
import type { RateLimits } from '../rate-limit/limiter.js';

/**
 * Counts every request under /api (decisions.md section 6): against the user with a valid token,
 * else against tenant + client address. Runs in onRequest, before the body is read or a password
 * is hashed, so a rejected login costs nothing. Every answer carries the X-RateLimit-* headers.
 */
export default fp<{ limits: RateLimits }>(
  async function rateLimit(app: FastifyInstance, { limits }) {
    app.addHook('onRequest', (request, reply, done) => {
      const tenant = request.tenant?.slug ?? '-';
      const counted = request.auth
        ? limits.consume('user', `${tenant}:${request.auth.user.id}`)
        : limits.consume('address', `${tenant}:${request.ip}`);
      counted.then((decision) => {
        reply.headers({
          'x-ratelimit-limit': decision.limit,
          'x-ratelimit-remaining': decision.remaining,
          'x-ratelimit-reset': decision.resetAtSeconds,
        });
        if (decision.allowed) return done();
        done(new ApiError('too_many_attempts', 'Too Many Attempts.', { retryAfterSeconds: decision.retryAfterSeconds }));
      }, done);
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
