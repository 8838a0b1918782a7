import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { listTokensOfUser } from '../../db/tokens.js';
import { toTokenListItem } from '../../domain/access-tokens.js';
import { callerOf } from '../../plugins/auth.js';
import { Envelope } from '../schemas.js';

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

export const TokenListItemSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  abilities: Type.Array(Type.String()),
  last_used_at: Nullable(Type.String()),
  expires_at: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  current: Type.Boolean({ description: 'true for the token this request was made with' }),
});

/** GET /tokens (extension): the caller's tokens, never their secrets or hashes. */
export default async function listTokensRoute(app: FastifyInstance) {
  app.get(
    '/tokens',
    {
      config: { requires: 'tokens:read' },
      schema: { response: { 200: Envelope(Type.Object({ tokens: Type.Array(TokenListItemSchema) })) } },
    },
    async (request) => {
      const caller = callerOf(request);
      const rows = await listTokensOfUser(request.tenant.db, caller.user.id);
      return { success: true, message: 'success', data: { tokens: rows.map((row) => toTokenListItem(row, caller.tokenId)) } };
    },
  );
}
