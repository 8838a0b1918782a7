import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { atLeast } from '../../access/permissions.js';
import { errors } from '../../errors.js';
import { IdParams, ok, parseId } from '../../http/before-body.js';
import { limitOf, PagingQuery } from '../../http/paging.js';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { Envelope, ErrorSchema } from '../../http/schemas.js';
import type { Access } from '../permissions/rules.js';
import { requireManagedEvent } from '../events/rules.js';
import type { ResourceRouteOptions } from '../groups/routes.js';
import { requireGroup } from '../groups/rules.js';
import { requireChangeable } from '../people/rules.js';
import { historyOf, type HistorySubject } from './history.js';
import { HistoryItemSchema, toApiHistoryItem } from './schemas.js';

const HistoryQuery = Type.Object(PagingQuery, { additionalProperties: false });
const HistoryAnswer = Envelope(Type.Object({ changes: Type.Array(HistoryItemSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) }));
const forbidden = { ...ErrorSchema, description: 'Invalid ability provided., or This action is unauthorized. (may not change the resource)' };
const idOf = (request: FastifyRequest) => parseId((request.params as { id?: string }).id);

interface HistoryEndpoint {
  path: string;
  kind: HistorySubject['kind'];
  ability: 'people:read' | 'groups:read' | 'events:read';
  tags: string[];
  operationId: string;
  who: string;
  /** The resource's id when the caller may read its history: 404 unseen, 403 without the right. */
  allowed: (request: FastifyRequest, access: Access) => Promise<number>;
}

const endpoints: HistoryEndpoint[] = [
  {
    path: '/people/:id/history',
    kind: 'person',
    ability: 'people:read',
    tags: ['people'],
    operationId: 'personHistory',
    who: 'Those who may change the person (groups.md section 3). With the records of their memberships and participations.',
    allowed: async (request, access) => Number((await requireChangeable(request.tenant.db, access, idOf(request))).person.id),
  },
  {
    path: '/groups/:id/history',
    kind: 'group',
    ability: 'groups:read',
    tags: ['groups'],
    operationId: 'groupHistory',
    who: '`write` on the group.',
    allowed: async (request, access) => {
      const group = await requireGroup(request.tenant.db, idOf(request));
      if (!atLeast(access.on(group.path), 'write')) throw errors.unauthorized();
      return Number(group.id);
    },
  },
  {
    path: '/events/:id/history',
    kind: 'event',
    ability: 'events:read',
    tags: ['events'],
    operationId: 'eventHistory',
    who: "The event's managers (`write` on its group).",
    allowed: async (request, access) => Number((await requireManagedEvent(request.tenant.db, access, idOf(request))).event.id),
  },
];

/** History (integrations.md section 3): a resource's change records, newest first. */
const historyRoutes: FastifyPluginAsyncTypebox<ResourceRouteOptions> = async (app, { cursorsOf, accessOf }) => {
  refuseUnknownQueryParameters(app);
  for (const endpoint of endpoints) {
    app.get(
      endpoint.path,
      {
        config: { requires: endpoint.ability },
        schema: {
          params: IdParams,
          querystring: HistoryQuery,
          tags: endpoint.tags,
          operationId: endpoint.operationId,
          summary: `The ${endpoint.kind}'s history`,
          description: `Its change records, newest first, with the actor and \`{field: [old, new]}\` of each update. ${endpoint.who}`,
          response: { 200: HistoryAnswer, 403: forbidden },
        },
      },
      async (request) => {
        const id = await endpoint.allowed(request, await accessOf(request));
        const cursors = cursorsOf(request);
        const list = `history:${endpoint.kind}:${id}`;
        const query = request.query as { cursor?: string; limit?: number };
        const before = query.cursor === undefined ? null : Number(cursors.decode(list, query.cursor)[0]);
        const limit = limitOf(query);
        const rows = await historyOf(request.tenant.db, { kind: endpoint.kind, id }, before, limit);
        const page = cursors.page(list, rows, limit, (row) => [Number(row.seq)]);
        return ok({ changes: page.rows.map(toApiHistoryItem), next_cursor: page.nextCursor });
      },
    );
  }
};

export default historyRoutes;
