import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { atLeast } from '../permissions/levels.js';
import { errors } from '../../errors.js';
import { beforeBody, IdParams, ok } from '../../http/before-body.js';
import { etagOf } from '../../http/etag.js';
import { limitOf } from '../../http/paging.js';
import { Envelope, NoContent, ValidationErrorSchema } from '../../http/schemas.js';
import type { Access } from '../permissions/rules.js';
import { changeGroup, createGroup, listGroups, removeGroup, requireGroup } from './rules.js';
import { ancestorsOf, GroupListQuery, GroupSchema, GroupUpdateSchema, NewGroupSchema, toApiGroup } from './schemas.js';
import { forbiddenAnswer, changedAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';

const tags = ['groups'];
const GroupAnswer = Envelope(Type.Object({ group: GroupSchema }));
const forbidden = forbiddenAnswer('role permission');

/** The groups module's routes: one tree per tenant. */
const groupRoutes: FastifyPluginAsyncTypebox<ResourceRouteOptions<Access>> = async (app, { cursorsOf, accessOf }) => {
  refuseUnknownQueryParameters(app);
  app.get(
    '/groups',
    {
      config: { requires: 'groups:read' },
      schema: {
        tags,
        operationId: 'listGroups',
        summary: 'List groups',
        description: 'The tree in pre-order, siblings by name; filters `parent_id`, `below` (that group and its whole subtree), `q` (name contains, ignoring case and accents).',
        querystring: GroupListQuery,
        response: { 200: Envelope(Type.Object({ groups: Type.Array(GroupSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) })) },
      },
    },
    async (request) => {
      const cursors = cursorsOf(request);
      const page = await listGroups(request.tenant.db, request.query, limitOf(request.query), cursors);
      return ok({ groups: page.rows.map(toApiGroup), next_cursor: page.nextCursor });
    },
  );

  app.get(
    '/groups/:id',
    {
      config: { requires: 'groups:read', etag: true },
      schema: {
        params: IdParams,
        tags,
        operationId: 'getGroup',
        summary: 'A group',
        description: 'The group and `ancestors`, the ids from the root down to its parent. ETag: the version of the group.',
        response: { 200: Envelope(Type.Object({ group: GroupSchema, ancestors: Type.Array(Type.Integer()) })) },
      },
    },
    async (request, reply) => {
      const group = await requireGroup(request.tenant.db, idOf(request));
      reply.header('etag', etagOf(group.version));
      return ok({ group: toApiGroup(group), ancestors: ancestorsOf(group) });
    },
  );

  app.post(
    '/groups',
    {
      config: { requires: 'groups:write', etag: true },
      schema: {
        tags,
        operationId: 'createGroup',
        summary: 'Create a group',
        description: 'A group below `parent_id`; needs `write` on the parent.',
        body: NewGroupSchema,
        response: { 201: GroupAnswer, 403: forbidden },
      },
    },
    async (request, reply) => {
      const group = await createGroup(request.tenant.db, await accessOf(request), request.body);
      return reply.code(201).header('etag', etagOf(group.version)).send(ok({ group: toApiGroup(group) }));
    },
  );

  // The group and the caller's permission on it are checked before the body is read.
  const writable = beforeBody(async (request) => {
    const group = await requireGroup(request.tenant.db, idOf(request));
    const access = await accessOf(request);
    return { group, access };
  });

  app.patch(
    '/groups/:id',
    {
      config: { requires: 'groups:write', etag: true, ifMatch: true },
      preParsing: async (request) => {
        await writable.preParsing(request);
        const { group, access } = writable.found(request);
        if (!atLeast(access.on(group.path), 'write')) throw errors.unauthorized();
      },
      schema: {
        params: IdParams,
        tags,
        operationId: 'updateGroup',
        summary: 'Change or move a group',
        description: 'Needs `write` on the group; a move (`parent_id`) also on the new parent. Honours If-Match.',
        body: GroupUpdateSchema,
        response: { 200: GroupAnswer, 403: forbidden, 412: changedAnswer },
      },
    },
    async (request, reply) => {
      const { group, access } = writable.found(request);
      const updated = await changeGroup(request.tenant.db, access, group, request.body, request.headers['if-match']);
      reply.header('etag', etagOf(updated.version));
      return ok({ group: toApiGroup(updated) });
    },
  );

  app.delete(
    '/groups/:id',
    {
      config: { requires: 'groups:write', ifMatch: true },
      preParsing: writable.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'deleteGroup',
        summary: 'Delete a group',
        description: 'Needs `write` on the parent. 422 while it has subgroups, active memberships or upcoming events (ended events go with it); the root is never deleted. Honours If-Match.',
        response: { 204: NoContent, 403: forbidden, 412: changedAnswer, 422: { ...ValidationErrorSchema, description: 'The group still has subgroups / active memberships / upcoming events; the root group' } },
      },
    },
    async (request, reply) => {
      const { group, access } = writable.found(request);
      await removeGroup(request.tenant.db, access, group, request.headers['if-match']);
      // No body: the type provider's view of a 204 would ask for a null one.
      return (reply as FastifyReply).code(204).send();
    },
  );
};

export default groupRoutes;
