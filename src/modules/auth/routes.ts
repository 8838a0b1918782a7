import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors, fieldMessages } from '../../errors.js';
import { callerOf } from '../../http/auth.js';
import { Envelope } from '../../http/schemas.js';
import { revokeToken } from '../tokens/rules.js';
import { login } from './rules.js';
import { LoginAnswerSchema, LoginRequestSchema, toLoginAnswer, SessionUserSchema } from './schemas.js';
import { changeOwnPassword } from './accounts.js';
import { NewPassword } from '../users/schemas.js';
import { setNewXsrfCookie, setSessionCookie } from '../../http/session.js';
import { ok } from '../../http/before-body.js';
import type { SessionLimits } from '../tokens/verifier.js';

/** PUT /user/password's body. */
const ChangePasswordSchema = Type.Object({
  current_password: Type.String({ minLength: 1, maxLength: 1024 }),
  password: NewPassword,
  password_confirmation: Type.String({ maxLength: 1024 }),
});

/** The auth module's routes: POST /login (of the original interface), and the extensions POST /logout and PUT /user/password. */
const authRoutes: FastifyPluginAsyncTypebox<{ tokenPrefix: string; sessions: SessionLimits }> = async (app, { tokenPrefix, sessions }) => {
  app.post(
    '/login',
    {
      // An API client's login: a browser's session cookie sent along is neither used nor checked.
      config: { csrf: 'never' },
      schema: {
        operationId: 'login',
        summary: 'Log in',
        description: 'Checks a username and password and hands out a token ("<id>|<secret>") for the bearer scheme.',
        security: [],
        body: LoginRequestSchema,
        response: { 200: LoginAnswerSchema },
      },
    },
    async (request) => {
    const result = await login(request.tenant.db, request.body.username, request.body.password, { tokenPrefix });
    if (!result) throw errors.loginFailed();
    return toLoginAnswer(result.user, result.issued);
    },
  );

  app.post(
    '/logout',
    {
      config: { requires: 'token', takesNoBody: true },
      schema: {
        operationId: 'logout',
        summary: 'Log out',
        description: 'Deletes the token this request was made with.',
        response: { 200: Envelope(Type.Object({})) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      await revokeToken(request.tenant.db, caller.user.id, caller.tokenId);
      return { success: true, message: 'Logged out.', data: {} };
    },
  );

  // PUT /user/password (extension). A new password ends every session: all of the
  // user's tokens are deleted, and the answer carries a fresh login token for this client.
  app.put(
    '/user/password',
    {
      config: { requires: 'user:write' },
      schema: {
        operationId: 'changePassword',
        summary: 'Change my password',
        description: "Checks the current password, sets the new one, revokes every token of the caller and answers like login.",
        body: ChangePasswordSchema,
        response: {
          200: Type.Union([LoginAnswerSchema, Envelope(Type.Object({ user: SessionUserSchema }))], {
            description: 'With a bearer token: a fresh login token, as POST /login answers. Through the session cookie: the user, and a new session cookie (the token never appears in the body).',
          }),
        },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { current_password, password, password_confirmation } = request.body;
      if (password !== password_confirmation) throw errors.invalidField('password', fieldMessages.confirmationMismatch('password'));
      // Through a session, the device that changed it stays signed in with a new session of the same kind.
      const session = request.headers.authorization === undefined ? caller.session : null;
      const issued = await changeOwnPassword(request.tenant.db, caller.user.id, current_password, password, tokenPrefix, session ?? undefined);
      if (!issued) throw errors.invalidField('current_password', fieldMessages.passwordIncorrect());
      if (session === null) return toLoginAnswer(caller.user, issued);
      setSessionCookie(reply, request, issued.plainTextToken, session, sessions.rememberMs);
      setNewXsrfCookie(reply, request);
      const { id, username, email, firstname, lastname } = caller.user;
      return ok({ user: { id, username, email, firstname, lastname } });
    },
  );
};

export default authRoutes;
