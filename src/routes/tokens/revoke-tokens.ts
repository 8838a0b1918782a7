import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { deleteOtherTokensOfUser, deleteTokenOfUser } from '../../db/tokens.js';
import { ApiError } from '../../errors.js';
import { callerOf } from '../../plugins/auth.js';
import { Envelope } from '../schemas.js';

const TOKEN_ID = /^[1-9]\d{0,14}$/;

/** DELETE /tokens/{id} and DELETE /tokens (extensions): revoke one token, or all but the current one. */
export default async function revokeTokensRoutes(app: FastifyInstance) {
  app.delete<{ Params: { id: string } }>(
    '/tokens/:id',
    { config: { requires: 'tokens:write' } },
    async (request, reply) => {
      const caller = callerOf(request);
      // Another user's token and a token that does not exist get the same answer.
      const deleted = TOKEN_ID.test(request.params.id)
        ? await deleteTokenOfUser(request.tenant.db, caller.user.id, Number(request.params.id))
        : 0;
      if (deleted === 0) throw new ApiError('not_found', 'Token not found.');
      await app.authChanges.publish({ tenant: request.tenant.slug, userId: null, tokenId: Number(request.params.id) });
      return reply.code(204).send();
    },
  );

  app.delete(
    '/tokens',
    {
      config: { requires: 'tokens:write' },
      schema: { response: { 200: Envelope(Type.Object({ deleted: Type.Integer() })) } },
    },
    async (request) => {
      const caller = callerOf(request);
      const deleted = await deleteOtherTokensOfUser(request.tenant.db, caller.user.id, caller.tokenId);
      await app.authChanges.publish({ tenant: request.tenant.slug, userId: caller.user.id, tokenId: null });
      return { success: true, message: 'success', data: { deleted } };
    },
  );
}
