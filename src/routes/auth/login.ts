import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { login } from '../../domain/authentication.js';
import { ApiError } from '../../errors.js';
import { LoginSuccessSchema } from '../schemas.js';
import { loginBody } from './login-body.js';

const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 255 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export interface LoginRouteOptions {
  tokenPrefix: string;
}

/** POST /login (api.md 4.1). */
export default async function loginRoutes(app: FastifyInstance, { tokenPrefix }: LoginRouteOptions) {
  app.post<{ Body: Static<typeof LoginBody> }>(
    '/login',
    { schema: { body: LoginBody, response: { 200: LoginSuccessSchema } } },
    async (request) => {
      const result = await login(request.tenant.db, request.body.username, request.body.password, { tokenPrefix });
      if (!result) throw new ApiError('login_failed', 'Login Fail, pls check password');
      return loginBody(result.user, result.issued);
    },
  );
}
