import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { login } from '../../domain/authentication.js';
import { ApiError } from '../../errors.js';
import { NewTokenSchema } from '../schemas.js';

const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 255 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

const LoginSuccess = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  data: Type.Object({
    id: Type.Integer(),
    username: Type.String(),
    email: Type.String(),
    firstname: Type.String(),
    lastname: Type.String(),
    api_key: Type.String(),
  }),
  api_key: NewTokenSchema,
});

export interface LoginRouteOptions {
  tokenPrefix: string;
}

/** POST /login (api.md 4.1). */
export default async function loginRoutes(app: FastifyInstance, { tokenPrefix }: LoginRouteOptions) {
  app.post<{ Body: Static<typeof LoginBody> }>(
    '/login',
    { schema: { body: LoginBody, response: { 200: LoginSuccess } } },
    async (request) => {
      const result = await login(request.tenant.db, request.body.username, request.body.password, { tokenPrefix });
      if (!result) throw new ApiError('login_failed', 'Login Fail, pls check password');
      const { user, issued } = result;
      return {
        success: true,
        message: 'success',
        data: {
          id: user.id,
          username: user.username,
          email: user.email,
          firstname: user.firstname,
          lastname: user.lastname,
          api_key: issued.plainTextToken,
        },
        api_key: issued,
      };
    },
  );
}
