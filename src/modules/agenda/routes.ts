import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ok } from '../../http/before-body.js';
import { limitOf } from '../../http/paging.js';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import type { ResourceRouteOptions } from '../../http/route-kit.js';
import { Envelope } from '../../http/schemas.js';
import type { Access } from '../permissions/rules.js';
import { agendaOf } from './rules.js';
import { AgendaItemSchema, AgendaQuery } from './schemas.js';

/** GET /user/agenda: what is next for the caller and their wards. */
const agendaRoutes: FastifyPluginAsyncTypebox<ResourceRouteOptions<Access>> = async (app, { cursorsOf, accessOf }) => {
  refuseUnknownQueryParameters(app);
  app.get(
    '/user/agenda',
    {
      config: { requires: 'events:read' },
      schema: {
        tags: ['events'],
        operationId: 'getAgenda',
        summary: "My family's agenda",
        description:
          'The events overlapping `from`-`to` (default: a day ago to 90 days ahead) that the caller or a ward is registered for (any state but cancelled), or that are open to one of them now (an active membership in the event\'s group or below it, registration open), by `starts_at`, then id. Each with the family\'s participations and who of them may register now.',
        querystring: AgendaQuery,
        response: { 200: Envelope(Type.Object({ events: Type.Array(AgendaItemSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) })) },
      },
    },
    async (request) => {
      const page = await agendaOf(request.tenant.db, await accessOf(request), request.query, limitOf(request.query), cursorsOf(request));
      return ok({ events: page.rows, next_cursor: page.nextCursor });
    },
  );
};

export default agendaRoutes;
