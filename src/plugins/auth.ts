import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  authenticateToken,
  LAST_USED_WRITE_INTERVAL_MS,
  recordTokenUse,
  type AuthenticatedToken,
} from '../domain/authentication.js';
import { toApiTimestamp } from '../domain/time.js';
import { hasAbility, parseBearerHeader } from '../domain/tokens.js';
import { ApiError, unauthenticated } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The token's owner when the request carried a valid bearer token, else null. */
    auth: AuthenticatedToken | null;
  }
}

/** The authenticated caller, or a 401 for the error handler to render. */
export function requireAuth(request: FastifyRequest): AuthenticatedToken {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}

/** The authenticated caller whose token grants `ability`; 401 without a token, 403 without the ability. */
export function requireAbility(request: FastifyRequest, ability: string): AuthenticatedToken {
  const auth = requireAuth(request);
  if (!hasAbility(auth.abilities, ability)) throw new ApiError('ability_missing', 'Invalid ability provided.');
  return auth;
}

export interface AuthPluginOptions {
  now?: () => Date;
}

/**
 * Bearer token -> user, for every request under /api. It never rejects by itself: the rate
 * limiter needs to know who is asking, and only routes that need a user call requireAuth().
 */
export default fp<AuthPluginOptions>(
  async function auth(app: FastifyInstance, { now = () => new Date() }) {
    app.decorateRequest('auth', null);
    app.addHook('onRequest', async (request) => {
      const bearer = parseBearerHeader(request.headers.authorization);
      if (!bearer || request.tenant === null) return;
      const moment = now();
      const found = await authenticateToken(request.tenant.db, bearer, moment);
      if (!found) return;
      request.auth = found;
      const lastUsedMs = found.lastUsedAt === null ? 0 : Date.parse(toApiTimestamp(found.lastUsedAt));
      if (moment.getTime() - lastUsedMs >= LAST_USED_WRITE_INTERVAL_MS) {
        // Not awaited: the answer does not wait for bookkeeping, and a failed write only loses a timestamp.
        recordTokenUse(request.tenant.db, found.tokenId, moment).catch((err: unknown) =>
          request.log.warn({ err }, 'could not record token use'),
        );
      }
    });
  },
  { name: 'auth', dependencies: ['tenant'] },
);
