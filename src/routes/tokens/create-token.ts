import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { ABILITIES, abilitiesBeyond } from '../../domain/abilities.js';
import { issueToken } from '../../domain/access-tokens.js';
import { validationFailed } from '../../errors.js';
import { StoredText } from '../../validation.js';
import { callerOf } from '../../plugins/auth.js';
import { Envelope, NewTokenSchema } from '../schemas.js';

const CreateTokenBody = Type.Object({
  name: StoredText({ minLength: 1, maxLength: 255 }),
  abilities: Type.Optional(
    Type.Array(Type.Union(ABILITIES.map((ability) => Type.Literal(ability))), { minItems: 1, maxItems: ABILITIES.length }),
  ),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
});

/** POST /tokens (extension): a new token, e.g. one per application, with fewer abilities or an expiry. */
export default async function createTokenRoute(app: FastifyInstance, { tokenPrefix }: { tokenPrefix: string }) {
  app.post<{ Body: Static<typeof CreateTokenBody> }>(
    '/tokens',
    { config: { requires: 'tokens:write' }, schema: { body: CreateTokenBody, response: { 201: Envelope(NewTokenSchema) } } },
    async (request, reply) => {
      const caller = callerOf(request);
      const abilities = [...new Set(request.body.abilities ?? ['*'])];
      const beyond = abilitiesBeyond(caller.abilities, abilities);
      if (beyond.length > 0) {
        throw validationFailed({
          abilities: [`The abilities field may not grant what this token lacks: ${beyond.join(', ')}.`],
        });
      }
      const expiresAt = request.body.expires_at === undefined ? null : new Date(request.body.expires_at);
      if (expiresAt && expiresAt.getTime() <= Date.now()) {
        throw validationFailed({ expires_at: ['The expires at field must be a date after now.'] });
      }
      const issued = await issueToken(request.tenant.db, caller.user.id, {
        tokenPrefix,
        name: request.body.name,
        abilities,
        expiresAt,
      });
      return reply.code(201).send({ success: true, message: 'success', data: issued });
    },
  );
}
