import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Access } from '../permissions/rules.js';
import Type from 'typebox';
import { callerOf } from '../../http/auth.js';
import { ok } from '../../http/before-body.js';
import { Envelope } from '../../http/schemas.js';
import { personalDataOf } from './rules.js';
import { PersonalDataSchema, toApiPersonalData } from './schemas.js';

/** GET /user/export: the caller's own data, nobody else's. */
const userExportRoutes: FastifyPluginAsync<{ accessOf: (request: FastifyRequest) => Promise<Access> }> = async (app, { accessOf }) => {
  app.get(
    '/user/export',
    {
      config: { requires: 'user:read' },
      schema: {
        tags: ['extensions'],
        operationId: 'exportMyData',
        summary: 'Everything kept about me',
        description:
          "The answer to a data-access request: the caller's person record, all their memberships (with group names), guardians and wards (id and names), tokens (as GET /tokens lists them, never secrets) and the history of their person, memberships and participations (newest first).",
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(Type.Object({ export: PersonalDataSchema })) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { day } = await accessOf(request);
      return ok({ export: toApiPersonalData(await personalDataOf(request.tenant.db, day, caller.user.id, caller.tokenId)) });
    },
  );
};

export default userExportRoutes;
