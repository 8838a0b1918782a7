import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { atLeast } from '../modules/permissions/levels.js';
import { errors } from '../errors.js';
import { readAllPages } from '../lib/read-all-pages.js';
import { IdParams, ok } from '../http/before-body.js';
import { limitOf, PagingQuery } from '../http/paging.js';
import { refuseUnknownQueryParameters } from '../http/query.js';
import { Envelope } from '../http/schemas.js';
import { isRootAdmin, type Access } from '../modules/permissions/rules.js';
import { requireManagedEvent, requireVisibleEvent, viewerOf } from '../modules/events/rules.js';
import type { TenantDatabase } from '../db/types.js';
import type { Kysely } from 'kysely';
import { requireGroup } from '../modules/groups/rules.js';
import { requireChangeable, requireVisiblePerson } from '../modules/people/rules.js';
import { forbiddenAnswer, idOf, type ResourceRouteOptions } from '../http/route-kit.js';
import { historyOf, type HistorySubject } from '../recording/records.js';
import { listPersonParticipations } from '../modules/participations/rules.js';
import { HistoryItemSchema, toApiHistoryItem } from '../modules/changes/schemas.js';

const HistoryQuery = Type.Object(PagingQuery, { additionalProperties: false });
const HistoryAnswer = Envelope(Type.Object({ changes: Type.Array(HistoryItemSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) }));
const forbidden = forbiddenAnswer('may not change the resource');

interface HistoryEndpoint {
  path: string;
  kind: HistorySubject['kind'];
  ability: 'people:read' | 'groups:read' | 'events:read';
  tags: string[];
  operationId: string;
  who: string;
  /** The resource whose history the caller may read: 404 unseen, 403 without the right. */
  allowed: (request: FastifyRequest, access: Access) => Promise<HistorySubject>;
}

const endpoints: HistoryEndpoint[] = [
  {
    path: '/people/:id/history',
    kind: 'person',
    ability: 'people:read',
    tags: ['people'],
    operationId: 'personHistory',
    who: 'Those who may change the person (`write` where they have an active membership, on the root when they have none; their guardians), or `admin` on the root. With the records of their memberships and participations (for others than admins on the root: in the events they see).',
    allowed: async (request, access) => {
      const db = request.tenant.db;
      // An admin on the root reads every history, with the records of
      // participations whose event is gone; anyone else the person's participations in the events
      // they see, as GET /people/{id}/participations shows them.
      if (isRootAdmin(access)) return { kind: 'person', id: Number((await requireVisiblePerson(db, access, idOf(request))).id), participationIds: 'all' };
      const id = Number((await requireChangeable(db, access, idOf(request))).person.id);
      return { kind: 'person', id, participationIds: await visibleParticipationIds(db, id, await viewerOf(db, access)) };
    },
  },
  {
    path: '/groups/:id/history',
    kind: 'group',
    ability: 'groups:read',
    tags: ['groups'],
    operationId: 'groupHistory',
    who: '`write` on the group, or `admin` on the root.',
    allowed: async (request, access) => {
      const group = await requireGroup(request.tenant.db, idOf(request));
      if (!atLeast(access.on(group.path), 'write') && !isRootAdmin(access)) throw errors.unauthorized();
      return { kind: 'group', id: Number(group.id) };
    },
  },
  {
    path: '/events/:id/history',
    kind: 'event',
    ability: 'events:read',
    tags: ['events'],
    operationId: 'eventHistory',
    who: "The event's managers (`write` on its group), or `admin` on the root.",
    allowed: async (request, access) => {
      const find = isRootAdmin(access) ? requireVisibleEvent : requireManagedEvent;
      return { kind: 'event', id: Number((await find(request.tenant.db, access, idOf(request))).event.id) };
    },
  },
];

const PAGE = 500;

/** The ids (as change records keep them) of P's participations in events the viewer sees. */
async function visibleParticipationIds(db: Kysely<TenantDatabase>, personId: number, viewer: Awaited<ReturnType<typeof viewerOf>>): Promise<string[]> {
  const rows = await readAllPages((after, size) => listPersonParticipations(db, personId, viewer, after, size), (row) => Number(row.id), PAGE);
  return rows.map((row) => String(row.id));
}

/** History: a resource's change records, newest first. */
const historyRoutes: FastifyPluginAsyncTypebox<ResourceRouteOptions<Access>> = async (app, { cursorsOf, accessOf }) => {
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
        const subject = await endpoint.allowed(request, await accessOf(request));
        const cursors = cursorsOf(request);
        const list = `history:${subject.kind}:${subject.id}`;
        const query = request.query as { cursor?: string; limit?: number };
        const before = query.cursor === undefined ? null : Number(cursors.decode(list, query.cursor)[0]);
        const limit = limitOf(query);
        const rows = await historyOf(request.tenant.db, subject, before, limit);
        const page = cursors.page(list, rows, limit, (row) => [Number(row.seq)]);
        return ok({ changes: page.rows.map(toApiHistoryItem), next_cursor: page.nextCursor });
      },
    );
  }
};

export default historyRoutes;
