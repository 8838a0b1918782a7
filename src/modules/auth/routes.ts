import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors } from '../../errors.js';
import { callerOf } from '../../http/auth.js';
import { Envelope } from '../../http/schemas.js';
import { revokeToken } from '../tokens/rules.js';
import { login } from './rules.js';
import { LoginAnswerSchema, LoginRequestSchema, toLoginAnswer } from './schemas.js';

/** The auth module's routes: POST /login (api.md 4.1) and POST /logout (extension). */
const authRoutes: FastifyPluginAsyncTypebox<{ tokenPrefix: string }> = async (app, { tokenPrefix }) => {
  app.post(
    '/login',
    {
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
      config: { requires: 'token' },
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
};

export default authRoutes;
