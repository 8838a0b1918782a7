import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Access } from '../permissions/rules.js';
import Type from 'typebox';
import { errors } from '../../errors.js';
import { callerOf } from '../../http/auth.js';
import { IdParams, ok } from '../../http/before-body.js';
import { forbiddenAnswer, idOf } from '../../http/route-kit.js';
import { Envelope, ErrorSchema, ValidationErrorSchema } from '../../http/schemas.js';
import { personalDataForAdministrator, personalDataOf } from './rules.js';
import { PersonalDataSchema, toApiPersonalData } from './schemas.js';

const ExportAnswer = Envelope(Type.Object({ export: PersonalDataSchema }));
/** Neither route takes a query parameter: any is 422, never ignored. */
const NoQuery = Type.Object({}, { additionalProperties: false });
const unknownQuery = { ...ValidationErrorSchema, description: 'A query parameter this endpoint does not take' };

/** A person's data: GET /user/export for the caller's own, GET /people/{id}/export for an administrator. */
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
          "The answer to a data-access request: the caller's person record, all their memberships (with group names), guardians and wards (id and names), tokens (as GET /tokens lists them, never secrets), the history of their person, memberships and participations (newest first), and the messages of leaders they received (id, subject, created_at; newest first).",
        querystring: NoQuery,
        response: { 200: ExportAnswer, 422: unknownQuery },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { day } = await accessOf(request);
      return ok({ export: toApiPersonalData(await personalDataOf(request.tenant.db, day, caller.user.id, caller.tokenId)) });
    },
  );

  app.get(
    '/people/:id/export',
    {
      config: { requires: 'people:read' },
      schema: {
        tags: ['people'],
        operationId: 'exportPersonData',
        summary: "Everything kept about a person",
        description:
          "Needs `admin` on the root: what GET /user/export gives the person themself, for an administrator who answers their data-access request. No token is marked `current` (the request's token is not theirs). A person the caller does not see: 404.",
        params: IdParams,
        querystring: NoQuery,
        response: {
          200: ExportAnswer,
          403: forbiddenAnswer('admin on the root needed'),
          404: { ...ErrorSchema, description: 'Person not found.' },
          422: unknownQuery,
        },
      },
    },
    async (request) => {
      const id = idOf(request);
      if (id === null) throw errors.notFound('Person');
      const data = await personalDataForAdministrator(request.tenant.db, await accessOf(request), id);
      return ok({ export: toApiPersonalData(data) });
    },
  );
};

export default userExportRoutes;
