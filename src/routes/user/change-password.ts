import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { changeOwnPassword } from '../../domain/accounts.js';
import { validationFailed } from '../../errors.js';
import { callerOf } from '../../plugins/auth.js';
import { loginBody } from '../auth/login-body.js';
import { LoginSuccessSchema } from '../schemas.js';

const ChangePasswordBody = Type.Object({
  current_password: Type.String({ minLength: 1, maxLength: 1024 }),
  password: Type.String({ minLength: 8, maxLength: 1024 }),
  password_confirmation: Type.String({ maxLength: 1024 }),
});

/**
 * PUT /user/password (extension). A new password ends every session (api.md 5.3): all of the
 * user's tokens are deleted, and the answer carries a fresh login token for this client.
 */
export default async function changePasswordRoute(app: FastifyInstance, { tokenPrefix }: { tokenPrefix: string }) {
  app.put<{ Body: Static<typeof ChangePasswordBody> }>(
    '/user/password',
    { config: { requires: 'user:write' }, schema: { body: ChangePasswordBody, response: { 200: LoginSuccessSchema } } },
    async (request) => {
      const caller = callerOf(request);
      const { current_password, password, password_confirmation } = request.body;
      if (password !== password_confirmation) {
        throw validationFailed({ password: ['The password field confirmation does not match.'] });
      }
      const issued = await changeOwnPassword(request.tenant.db, caller.user.id, current_password, password, tokenPrefix);
      if (!issued) throw validationFailed({ current_password: ['The password is incorrect.'] });
      await app.authChanges.publish({ tenant: request.tenant.slug, userId: caller.user.id, tokenId: null });
      return loginBody(caller.user, issued);
    },
  );
}
