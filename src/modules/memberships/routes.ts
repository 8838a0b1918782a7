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
import { requireGroup } from '../groups/rules.js';
import { groupMembershipKey, listGroupMemberships } from './queries.js';
import { changeMembership, grantMembership, removeMembership, requireGrantable, requireVisibleMembership } from './rules.js';
import { GroupMembershipSchema, GroupMembershipsQuery, MembershipSchema, MembershipUpdateSchema, NewMembershipSchema, toApiMembership } from './schemas.js';
import { refuseFields } from '../users/schemas.js';
import { forbiddenAnswer, changedAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import type { Access } from '../permissions/rules.js';

const tags = ['memberships'];
const MembershipAnswer = Envelope(Type.Object({ membership: MembershipSchema }));
const forbidden = forbiddenAnswer('role permission');
/** Fixed at creation: end a membership and add another instead. */
const FIXED = ['person_id', 'group_id', 'role_type'];

/** The memberships module's routes (docs/api/groups-people-memberships.md). */
const membershipRoutes: FastifyPluginAsyncTypebox<ResourceRouteOptions<Access>> = async (app, { cursorsOf, accessOf }) => {
  refuseUnknownQueryParameters(app);
  app.get(
    '/groups/:id/memberships',
    {
      config: { requires: 'people:read' },
      schema: {
        params: IdParams,
        tags,
        operationId: 'listGroupMemberships',
        summary: "A group's memberships",
        description: 'Needs `read` on the group. Active today unless `active_on` (a day) or `all=true`; filter `role_type`. Ordered by the people\'s names.',
        querystring: GroupMembershipsQuery,
        response: {
          200: Envelope(Type.Object({ memberships: Type.Array(GroupMembershipSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) })),
          403: forbidden,
        },
      },
    },
    async (request) => {
      const cursors = cursorsOf(request);
      const group = await requireGroup(request.tenant.db, idOf(request));
      const access = await accessOf(request);
      if (!atLeast(access.on(group.path), 'read')) throw errors.unauthorized();
      const { query } = request;
      const list = `group-memberships:${Number(group.id)}`;
      const after = query.cursor === undefined ? null : cursors.decode(list, query.cursor);
      const limit = limitOf(query);
      const rows = await listGroupMemberships(
        request.tenant.db,
        Number(group.id),
        { activeOn: query.all === true ? null : (query.active_on ?? access.day), ...(query.role_type !== undefined ? { roleType: query.role_type } : {}) },
        after,
        limit,
      );
      const page = cursors.page(list, rows, limit, groupMembershipKey);
      return ok({
        memberships: page.rows.map((row) => ({
          ...toApiMembership(row),
          person: { id: Number(row.person_id), firstname: row.p_firstname, lastname: row.p_lastname },
        })),
        next_cursor: page.nextCursor,
      });
    },
  );

  app.post(
    '/memberships',
    {
      config: { requires: 'people:write', etag: true },
      schema: {
        tags,
        operationId: 'createMembership',
        summary: 'Add a membership',
        description: 'Needs `write` on the group, a person the caller sees, and a role whose permission is not above the caller\'s own there. `start_on` defaults to today.',
        body: NewMembershipSchema,
        response: { 201: MembershipAnswer, 403: forbidden },
      },
    },
    async (request, reply) => {
      const { person_id: personId, ...grant } = request.body;
      const created = await grantMembership(request.tenant.db, await accessOf(request), personId, grant);
      return reply.code(201).header('etag', etagOf(created.version)).send(ok({ membership: toApiMembership(created) }));
    },
  );

  // Seen (404), then `write` on its group with its role grantable (403), before the body is read.
  const writable = beforeBody(async (request) => {
    const access = await accessOf(request);
    const found = await requireVisibleMembership(request.tenant.db, access, idOf(request));
    await requireGrantable(request.tenant.db, access, found.group, found.membership.role_type);
    return { ...found, access };
  });

  app.patch(
    '/memberships/:id',
    {
      config: { requires: 'people:write', etag: true, ifMatch: true },
      preParsing: writable.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'updateMembership',
        summary: 'Change a membership',
        description: 'Label and dates only (person, group and role type are fixed). Honours If-Match.',
        body: MembershipUpdateSchema,
        response: { 200: MembershipAnswer, 403: forbidden, 412: changedAnswer },
      },
    },
    async (request, reply) => {
      refuseFields(request.body, FIXED);
      const { membership, access } = writable.found(request);
      const updated = await changeMembership(request.tenant.db, access, membership, request.body, request.headers['if-match']);
      reply.header('etag', etagOf(updated.version));
      return ok({ membership: toApiMembership(updated) });
    },
  );

  app.delete(
    '/memberships/:id',
    {
      config: { requires: 'people:write', ifMatch: true },
      preParsing: writable.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'deleteMembership',
        summary: 'Delete a membership',
        description: 'For mistakes; ending is PATCH end_on. The last administrator cannot be removed. Honours If-Match.',
        response: { 204: NoContent, 403: forbidden, 412: changedAnswer, 422: { ...ValidationErrorSchema, description: 'The last administrator cannot be removed.' } },
      },
    },
    async (request, reply) => {
      const { membership, access } = writable.found(request);
      await removeMembership(request.tenant.db, access, membership, request.headers['if-match']);
      return (reply as FastifyReply).code(204).send();
    },
  );
};

export default membershipRoutes;
