import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../../errors.js';
import type { Bucket, RateDecision, RateLimits } from './limiter.js';

// HOT PATH (see docs/architecture.md): one count per request, synchronous when counting in process.

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route counts its requests itself with `countRequest`, once it knows what against (a
     * calendar feed counts by its token, which only the route can look up). A request of an
     * unknown tenant is counted here as always.
     */
    countsItself?: boolean;
  }
  interface FastifyInstance {
    /** Counts the request against `bucket` and `key` and sets the X-RateLimit-* headers; 429 past the limit. */
    countRequest(request: FastifyRequest, reply: FastifyReply, bucket: Bucket, key: string): Promise<void>;
  }
}

/**
 * Counts every request under /api: against the user with a valid token,
 * else against tenant + client address. Runs in onRequest, before the body is read or a password
 * is hashed, so a rejected login costs nothing. Every answer carries the X-RateLimit-* headers.
 */
export default fp<{ limits: RateLimits }>(
  async function rateLimit(app: FastifyInstance, { limits }) {
    /** The headers of `decision`, and the 429 error when it refuses (null when it allows). */
    const apply = (reply: FastifyReply, decision: RateDecision) => {
      reply.headers({
        'x-ratelimit-limit': decision.limit,
        'x-ratelimit-remaining': decision.remaining,
        'x-ratelimit-reset': decision.resetAtSeconds,
      });
      return decision.allowed ? null : errors.tooManyAttempts(decision.retryAfterSeconds);
    };
    app.decorate('countRequest', async (_request: FastifyRequest, reply: FastifyReply, bucket: Bucket, key: string) => {
      const refused = apply(reply, limits.consumeNow ? limits.consumeNow(bucket, key) : await limits.consume(bucket, key));
      if (refused) throw refused;
    });
    app.addHook('onRequest', (request, reply, done) => {
      if (request.routeOptions.config?.countsItself === true && request.tenant) return done();
      const tenant = request.tenant?.slug ?? '-';
      const [bucket, key] = request.auth
        ? (['user', `${tenant}:${request.auth.user.id}`] as const)
        : (['address', `${tenant}:${request.ip}`] as const);
      const decided = (decision: RateDecision) => done(apply(reply, decision) ?? undefined);
      if (limits.consumeNow) return decided(limits.consumeNow(bucket, key));
      limits.consume(bucket, key).then(decided, done);
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
