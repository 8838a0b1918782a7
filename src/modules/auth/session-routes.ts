import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { errors } from '../../errors.js';
import { ok } from '../../http/before-body.js';
import { Envelope, NoContent } from '../../http/schemas.js';
import { clearSessionCookie, setNewXsrfCookie, setSessionCookie } from '../../http/session.js';
import { revokePresentedToken, revokeToken } from '../tokens/rules.js';
import type { SessionLimits } from '../tokens/verifier.js';
import { login } from './rules.js';
import { LoginRequestSchema, SessionUserSchema } from './schemas.js';

// Signing in and out of the web app (http/session.ts has the cookies and the CSRF check). Behind the
// session cookie is a token named `web session`, so every rule of tokens holds for it: a password
// change, deactivation, erasure or `groupadmin token revoke` ends it, GET /tokens lists it, and
// DELETE /tokens/{id} signs that device out.

const SessionRequestSchema = Type.Object({
  ...LoginRequestSchema.properties,
  remember: Type.Optional(Type.Boolean({ description: `Keep the session for SESSION_REMEMBER_DAYS without a request, rather than SESSION_IDLE_MINUTES` })),
});

interface SessionRouteOptions {
  tokenPrefix: string;
  sessions: SessionLimits;
}

const sessionRoutes: FastifyPluginAsyncTypebox<SessionRouteOptions> = async (app, { tokenPrefix, sessions }) => {
  app.post(
    '/session',
    {
      // The X-XSRF-TOKEN check always applies; a session cookie sent along is replaced, never used.
      config: { csrf: 'always', ignoresSessionCookie: true },
      schema: {
        tags: ['extensions'],
        operationId: 'signIn',
        summary: 'Sign in a browser',
        description:
          'Checks a username and password as POST /login does (the same 401, 422 and limits), with the header X-XSRF-TOKEN equal to the XSRF-TOKEN cookie of GET /csrf-cookie (else 419). Sets the HttpOnly session cookie `groupadmin_session` (`__Host-groupadmin_session` over HTTPS) and a new XSRF-TOKEN; no token appears in the body. A session cookie sent along is replaced and its token deleted.',
        security: [],
        body: SessionRequestSchema,
        response: { 200: Envelope(Type.Object({ user: SessionUserSchema })) },
      },
    },
    async (request, reply) => {
      const { db } = request.tenant;
      if (request.sessionCookie !== null) await revokePresentedToken(db, request.sessionCookie);
      const kind = request.body.remember === true ? 'remembered' : 'short';
      const result = await login(db, request.body.username, request.body.password, { tokenPrefix, session: kind });
      if (!result) throw errors.loginFailed();
      setSessionCookie(reply, request, result.issued.plainTextToken, kind, sessions.rememberMs);
      setNewXsrfCookie(reply, request);
      const { id, username, email, firstname, lastname } = result.user;
      return ok({ user: { id, username, email, firstname, lastname } });
    },
  );

  app.delete(
    '/session',
    {
      schema: {
        tags: ['extensions'],
        operationId: 'signOut',
        summary: 'Sign out',
        description:
          'Deletes the token that authenticated this request (the session cookie, or a bearer token) and clears the session cookie; 204 also without a valid session. With the session cookie, X-XSRF-TOKEN must match (else 419).',
        security: [],
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const caller = request.auth;
      if (caller !== null) await revokeToken(request.tenant.db, caller.user.id, caller.tokenId);
      clearSessionCookie(reply, request);
      setNewXsrfCookie(reply, request);
      // No body: the type provider's view of a 204 would ask for a null one.
      return (reply as FastifyReply).code(204).send();
    },
  );
};

export default sessionRoutes;
