import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../../errors.js';
import type { RateDecision, RateLimits } from './limiter.js';

// HOT PATH (see docs/architecture.md): one count per request, synchronous when counting in process.

/**
 * Counts every request under /api: against the user with a valid token,
 * else against tenant + client address. Runs in onRequest, before the body is read or a password
 * is hashed, so a rejected login costs nothing. Every answer carries the X-RateLimit-* headers.
 */
export default fp<{ limits: RateLimits }>(
  async function rateLimit(app: FastifyInstance, { limits }) {
    app.addHook('onRequest', (request, reply, done) => {
      const tenant = request.tenant?.slug ?? '-';
      const [bucket, key] = request.auth
        ? (['user', `${tenant}:${request.auth.user.id}`] as const)
        : (['address', `${tenant}:${request.ip}`] as const);
      const apply = (decision: RateDecision) => {
        reply.headers({
          'x-ratelimit-limit': decision.limit,
          'x-ratelimit-remaining': decision.remaining,
          'x-ratelimit-reset': decision.resetAtSeconds,
        });
        if (decision.allowed) return done();
        done(errors.tooManyAttempts(decision.retryAfterSeconds));
      };
      if (limits.consumeNow) return apply(limits.consumeNow(bucket, key));
      limits.consume(bucket, key).then(apply, done);
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
