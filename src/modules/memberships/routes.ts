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
import {
  BulkMembershipSchema,
  checkMembershipBody,
  checkMembershipChangesBody,
  FIXED_FIELDS,
  GroupMembershipSchema,
  GroupMembershipsQuery,
  MembershipChangeListSchema,
  MembershipSchema,
  MembershipUpdateSchema,
  NewMembershipSchema,
  toApiMembership,
} from './schemas.js';
import { changeManyMemberships, grantMany } from './bulk.js';
import { BULK_BODY_LIMIT } from '../../http/bulk.js';
import { bodyCheckedBy } from '../../http/json-body.js';
import { refuseFields } from '../users/schemas.js';
import { forbiddenAnswer, changedAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import type { Access } from '../permissions/rules.js';

const tags = ['memberships'];
const MembershipAnswer = Envelope(Type.Object({ membership: MembershipSchema }));
const MembershipListAnswer = Envelope(Type.Object({ memberships: Type.Array(MembershipSchema) }));
const forbidden = forbiddenAnswer('role permission');

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
      bodyLimit: BULK_BODY_LIMIT,
      validatorCompiler: bodyCheckedBy(checkMembershipBody),
      schema: {
        tags,
        operationId: 'createMembership',
        summary: 'Add a membership, or the same membership for several people',
        description:
          'Needs `write` on the group, a person the caller sees, and a role whose permission is not above the caller\'s own there. `start_on` defaults to today. ' +
          'With `person_ids` (1-200, no repeats) instead of `person_id`: the same membership for each, in the order given; all or nothing (a person not seen or holding the role there already is a 422 entry `person_ids.<i>`, and no one is added); answer 201 `{memberships: [...]}` in the order given, without ETag.',
        body: Type.Union([NewMembershipSchema, BulkMembershipSchema]),
        response: { 201: Type.Union([MembershipAnswer, MembershipListAnswer]), 403: forbidden },
      },
    },
    async (request, reply) => {
      const access = await accessOf(request);
      const body = request.body;
      if ('person_ids' in body) {
        const { person_ids: personIds, ...grant } = body;
        const created = await grantMany(request.tenant.db, access, personIds, grant);
        return reply.code(201).send(ok({ memberships: created.map(toApiMembership) }));
      }
      const { person_id: personId, ...grant } = body;
      const created = await grantMembership(request.tenant.db, access, personId, grant);
      return reply.code(201).header('etag', etagOf(created.version)).send(ok({ membership: toApiMembership(created) }));
    },
  );

  app.patch(
    '/memberships',
    {
      config: { requires: 'people:write' },
      bodyLimit: BULK_BODY_LIMIT,
      validatorCompiler: bodyCheckedBy(checkMembershipChangesBody),
      schema: {
        tags,
        operationId: 'updateMemberships',
        summary: 'Change several memberships (end them on a day)',
        description:
          'Each item as PATCH /memberships/{id} would change it (label and dates), checked against its own group, in the order given; 1-200 items, no id twice. All or nothing: a refused item is a 422 entry keyed `memberships.<i>.id` (not found, not allowed) or `memberships.<i>.<field>`; the last-administrator rule applies to the set as a whole (`memberships`). No If-Match.',
        body: MembershipChangeListSchema,
        response: { 200: MembershipListAnswer, 403: forbidden },
      },
    },
    async (request) => {
      const updated = await changeManyMemberships(request.tenant.db, await accessOf(request), request.body.memberships);
      return ok({ memberships: updated.map(toApiMembership) });
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
      refuseFields(request.body, FIXED_FIELDS);
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
