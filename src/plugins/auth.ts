import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AuthChangeFeed } from '../domain/auth-changes.js';
import { LAST_USED_WRITE_INTERVAL_MS, type LastUseRecorder } from '../domain/last-use.js';
import type { AuthenticatedToken, TokenVerifier } from '../domain/token-verifier.js';
import { hasAbility, type Ability } from '../domain/abilities.js';
import { parseBearerHeader } from '../domain/tokens.js';
import { ApiError, unauthenticated } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The token's owner when the request carried a valid bearer token, else null. */
    auth: AuthenticatedToken | null;
  }
  interface FastifyInstance {
    /** Routes that revoke tokens or change users publish it here, once the change is committed. */
    authChanges: Pick<AuthChangeFeed, 'publish'>;
  }
  interface FastifyContextConfig {
    /**
     * The route needs a valid token ('token') or a token with this ability. Checked before the
     * body is read: 401 without a valid token, 403 without the ability, and only then 400/422.
     */
    requires?: Ability | 'token';
  }
}

/** The caller of a route that declares `config.requires` (the hook has already checked it). */
export function callerOf(request: FastifyRequest): AuthenticatedToken {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}

/**
 * 401 without a valid token, 403 without the ability the route declares. Checked after the rate
 * limiter and before the body is read (see admitRequest in app.ts).
 */
export function enforceRequirement(request: FastifyRequest): void {
  const required = request.routeOptions.config?.requires;
  if (required === undefined) return;
  if (!request.auth) throw unauthenticated();
  if (required !== 'token' && !hasAbility(request.auth.abilities, required)) {
    throw new ApiError('ability_missing', 'Invalid ability provided.');
  }
}

export interface AuthPluginOptions {
  verifier: TokenVerifier;
  authChanges: Pick<AuthChangeFeed, 'publish'>;
  lastUse: LastUseRecorder;
  now?: () => Date;
}

/**
 * Bearer token -> user, for every request under /api. It never rejects by itself: the rate
 * limiter needs to know who is asking. Routes say what they need in `config.requires`.
 */
export default fp<AuthPluginOptions>(
  async function auth(app: FastifyInstance, { verifier, authChanges, lastUse, now = () => new Date() }) {
    app.decorate('authChanges', authChanges);
    app.decorateRequest('auth', null);
    // Synchronous when the token row is in memory or on SQLite: no promise on the hot path.
    app.addHook('onRequest', (request, _reply, done) => {
      const bearer = parseBearerHeader(request.headers.authorization);
      if (!bearer || request.tenant === null) return done();
      const moment = now();
      const accept = (found: AuthenticatedToken | null) => {
        if (found) {
          request.auth = found;
          recordUseNowAndThen(request, found, moment);
        }
        done();
      };
      let immediate: AuthenticatedToken | null | undefined;
      try {
        immediate = verifier.verifyNow(request.tenant.slug, request.tenant.db, bearer, moment.getTime());
      } catch (err) {
        return done(err as Error);
      }
      if (immediate !== undefined) return accept(immediate);
      verifier.verify(request.tenant.slug, request.tenant.db, bearer, moment.getTime()).then(accept, done);
    });

    /** last_used_at at most once per LAST_USED_WRITE_INTERVAL_MS per token, written in batches. */
    const recordUseNowAndThen = (request: FastifyRequest, found: AuthenticatedToken, moment: Date) => {
      const nowMs = moment.getTime();
      if (nowMs - (found.lastUsedAtMs ?? 0) < LAST_USED_WRITE_INTERVAL_MS) return;
      verifier.markUsed(request.tenant.slug, found.tokenId, nowMs);
      lastUse.record(request.tenant.slug, request.tenant.db, found.tokenId, moment);
    };
  },
  { name: 'auth', dependencies: ['tenant'] },
);
