import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { deleteTokenOfUser } from '../../db/tokens.js';
import { callerOf } from '../../plugins/auth.js';
import { Envelope } from '../schemas.js';

/** POST /logout (extension): deletes the token this request was made with. */
export default async function logoutRoute(app: FastifyInstance) {
  app.post(
    '/logout',
    { config: { requires: 'token' }, schema: { response: { 200: Envelope(Type.Object({})) } } },
    async (request) => {
      const caller = callerOf(request);
      await deleteTokenOfUser(request.tenant.db, caller.user.id, caller.tokenId);
      await app.authChanges.publish({ tenant: request.tenant.slug, userId: null, tokenId: caller.tokenId });
      return { success: true, message: 'Logged out.', data: {} };
    },
  );
}
