import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { callerOf } from '../../http/auth.js';
import { Envelope, ErrorSchema, NoContent } from '../../http/schemas.js';
import { errors, fieldMessages } from '../../errors.js';
import { listTokens, issueToken, newTokenProblems, revokeOtherTokens, revokeToken, SESSION_TOKEN_NAME } from './rules.js';
import { NewTokenRequestSchema, NewTokenSchema, TokenListItemSchema } from './schemas.js';
import { tokenExpiry } from './queries.js';
import { toApiTimestamp } from '../../lib/time.js';
import type { SessionLimits } from './verifier.js';

const TOKEN_ID = /^[1-9]\d{0,14}$/;

/** The tokens module's routes (extensions): one token per application, listed and revoked by its owner. */
const tokenRoutes: FastifyPluginAsyncTypebox<{ tokenPrefix: string; sessions: SessionLimits }> = async (app, { tokenPrefix, sessions }) => {
  app.get(
    '/tokens',
    {
      config: { requires: 'tokens:read' },
      schema: {
        operationId: 'listTokens',
        summary: 'My tokens',
        description: "The caller's tokens, never their secrets or hashes; `current` marks the one of this request.",
        response: { 200: Envelope(Type.Object({ tokens: Type.Array(TokenListItemSchema) })) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return { success: true, message: 'success', data: { tokens: await listTokens(request.tenant.db, caller.user.id, caller.tokenId, sessions) } };
    },
  );

  app.post(
    '/tokens',
    {
      config: { requires: 'tokens:write' },
      schema: {
        operationId: 'createToken',
        summary: 'Create a token',
        description: 'A new token for the caller, e.g. one per application, with fewer abilities or an expiry.',
        body: NewTokenRequestSchema,
        response: { 201: Envelope(NewTokenSchema) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      if (request.body.name === SESSION_TOKEN_NAME) throw errors.invalidField('name', fieldMessages.reservedTokenName(SESSION_TOKEN_NAME));
      const abilities = [...new Set(request.body.abilities ?? ['*'])];
      const expiresAt = request.body.expires_at === undefined ? null : new Date(request.body.expires_at);
      const makerExpiry = await tokenExpiry(request.tenant.db, caller.tokenId);
      const maker = { abilities: caller.abilities, expiresAt: makerExpiry ? new Date(toApiTimestamp(makerExpiry)) : null };
      const problems = newTokenProblems(maker, { abilities, expiresAt });
      if (problems) throw errors.validation(problems);
      const issued = await issueToken(request.tenant.db, caller.user.id, { tokenPrefix, name: request.body.name, abilities, expiresAt });
      return reply.code(201).send({ success: true, message: 'success', data: issued });
    },
  );

  app.delete(
    '/tokens/:id',
    {
      config: { requires: 'tokens:write' },
      schema: {
        operationId: 'revokeToken',
        summary: 'Revoke a token',
        description: "Revokes one of the caller's tokens; another user's token is not found, like one that does not exist.",
        params: Type.Object({ id: Type.String() }),
        response: { 204: { ...NoContent, description: 'Revoked' }, 404: { ...ErrorSchema, description: "Token not found. (also for another user's token)" } },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      // Another user's token and a token that does not exist get the same answer.
      const revoked = TOKEN_ID.test(request.params.id) && (await revokeToken(request.tenant.db, caller.user.id, Number(request.params.id)));
      if (!revoked) throw errors.notFound('Token');
      // No body: the type provider's view of a 204 would ask for a null one.
      return (reply as FastifyReply).code(204).send();
    },
  );

  app.delete(
    '/tokens',
    {
      config: { requires: 'tokens:write' },
      schema: {
        operationId: 'revokeOtherTokens',
        summary: 'Revoke my other tokens',
        description: 'Revokes every token of the caller except the one of this request.',
        response: { 200: Envelope(Type.Object({ deleted: Type.Integer() })) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const deleted = await revokeOtherTokens(request.tenant.db, caller.user.id, caller.tokenId);
      return { success: true, message: 'success', data: { deleted } };
    },
  );
};

export default tokenRoutes;
