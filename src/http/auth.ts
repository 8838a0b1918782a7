import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { requireCaller, type Caller, type Requirement } from './caller.js';
import { clearSessionCookie, cookieDueAgain, readSessionCookie, setSessionCookie } from './session.js';
import type { RequestTenant } from './tenant.js';

// HOT PATH (see docs/architecture.md): bearer -> caller without a promise when the token row is remembered.

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller when the request carried a valid bearer token, else null. */
    auth: Caller | null;
  }
  interface FastifyContextConfig {
    /**
     * The route needs a valid token ('token') or a token with this ability. Checked before the
     * body is read: 401 without a valid token, 403 without the ability, and only then 400/422.
     */
    requires?: Requirement;
    /** The route reads the session cookie itself (signing in replaces it): the pipeline does not authenticate with it. */
    ignoresSessionCookie?: boolean;
    /** The route's success answer carries `ETag` (etag.ts). Read only for the OpenAPI document. */
    etag?: boolean;
    /** The route honours `If-Match` (412 on an older version). Read only for the OpenAPI document. */
    ifMatch?: boolean;
  }
}

/**
 * Bearer header -> caller. `authenticateNow` answers without a promise when it can (the token row
 * is remembered, or the storage reads synchronously) and returns undefined when it cannot.
 */
export interface Authenticator {
  authenticateNow(tenant: RequestTenant, authorization: string, now: Date): Caller | null | undefined;
  authenticate(tenant: RequestTenant, authorization: string, now: Date): Promise<Caller | null>;
  /** A session cookie's token did not authenticate: delete it if it is a session that ended (off the request's path). */
  dropEndedSession(tenant: RequestTenant, authorization: string, now: Date): void;
}

/** The caller of a route that declares `config.requires` (the hook has already checked it). */
export function callerOf(request: FastifyRequest): Caller {
  return requireCaller(request.auth, 'token');
}

/**
 * 401 without a valid token, 403 without the ability the route declares. Checked after the rate
 * limiter and before the body is read (see admitRequest in app.ts).
 */
export function enforceRequirement(request: FastifyRequest): void {
  const required = request.routeOptions.config?.requires;
  if (required !== undefined) requireCaller(request.auth, required);
}

export interface AuthPluginOptions {
  authenticator: Authenticator;
  now?: () => Date;
  /** SESSION_REMEMBER_DAYS in ms: the Max-Age of a remembered session's cookie when it is sent again. */
  sessionRememberMs: number;
}

/**
 * Bearer token -> caller, for every request under /api. It never rejects by itself: the rate
 * limiter needs to know who is asking. Routes say what they need in `config.requires`.
 */
export default fp<AuthPluginOptions>(
  async function auth(app: FastifyInstance, { authenticator, now = () => new Date(), sessionRememberMs }) {
    app.decorateRequest('auth', null);
    app.decorateRequest('sessionCookie', null);
    // Synchronous when the token row is in memory or on SQLite: no promise on the hot path.
    app.addHook('onRequest', (request, reply, done) => {
      let authorization = request.headers.authorization;
      const tenant = request.tenant;
      if (tenant === null) return done();
      let fromCookie = false;
      if (authorization === undefined) {
        // No Authorization header: a browser's session cookie may stand in for it (session.ts).
        const config = request.routeOptions.config;
        if (config?.csrf === 'never') return done();
        const cookie = readSessionCookie(request);
        if (cookie === null) return done();
        request.sessionCookie = cookie;
        if (config?.ignoresSessionCookie === true) return done();
        authorization = `Bearer ${cookie}`;
        fromCookie = true;
      }
      const moment = now();
      const accept = (found: Caller | null) => {
        // A cookie authenticates only a session token; one that ended (or any other) is dropped.
        if (fromCookie && found?.session == null) {
          clearSessionCookie(reply, request);
          if (found === null) authenticator.dropEndedSession(tenant, authorization, moment);
          found = null;
        } else if (fromCookie && cookieDueAgain(found!, moment.getTime())) {
          setSessionCookie(reply, request, request.sessionCookie!, 'remembered', sessionRememberMs);
        }
        request.auth = found;
        done();
      };
      let immediate: Caller | null | undefined;
      try {
        immediate = authenticator.authenticateNow(tenant, authorization, moment);
      } catch (err) {
        return done(err as Error);
      }
      if (immediate !== undefined) return accept(immediate);
      authenticator.authenticate(tenant, authorization, moment).then(accept, done);
    });
  },
  { name: 'auth', dependencies: ['tenant'] },
);
