import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { beforeBody, ok } from '../../http/before-body.js';
import { etagOf } from '../../http/etag.js';
import { Envelope, NoContent, ValidationErrorSchema } from '../../http/schemas.js';
import { actorOf } from '../../recording/recorder.js';
import { changeRoleType, createRoleType, listRoleTypes, removeRoleType, requireAdminOnRoot } from './rules.js';
import { NewRoleTypeSchema, RoleTypeSchema, RoleTypeUpdateSchema, toApiRoleType } from './schemas.js';
import { forbiddenAnswer, changedAnswer, type ResourceRouteOptions } from '../../http/route-kit.js';
import type { Access } from '../permissions/rules.js';

const tags = ['roles'];
const RoleTypeAnswer = Envelope(Type.Object({ role_type: RoleTypeSchema }));
const forbidden = forbiddenAnswer('admin on the root needed');

/** The role-types module's routes: the tenant's catalogue of roles. */
const roleTypeRoutes: FastifyPluginAsyncTypebox<ResourceRouteOptions<Access>> = async (app, { accessOf }) => {
  refuseUnknownQueryParameters(app);
  app.get(
    '/role-types',
    {
      config: { requires: 'groups:read' },
      schema: {
        tags,
        operationId: 'listRoleTypes',
        summary: 'List role types',
        description: 'The whole catalogue (not paged), oldest first.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(Type.Object({ role_types: Type.Array(RoleTypeSchema) })) },
      },
    },
    async (request) => ok({ role_types: (await listRoleTypes(request.tenant.db)).map(toApiRoleType) }),
  );

  // admin on the root, checked before the body is read.
  const admin = beforeBody(async (request) => requireAdminOnRoot(await accessOf(request)));

  app.post(
    '/role-types',
    {
      config: { requires: 'roles:write', etag: true },
      preParsing: admin.preParsing,
      schema: {
        tags,
        operationId: 'createRoleType',
        summary: 'Create a role type',
        description: 'Needs `admin` on the root. `key`: 1-64 of a-z, 0-9, _ (starting with a letter), unique.',
        body: NewRoleTypeSchema,
        response: { 201: RoleTypeAnswer, 403: forbidden },
      },
    },
    async (request, reply) => {
      const created = await createRoleType(request.tenant.db, actorOf(admin.found(request)), request.body);
      return reply.code(201).header('etag', etagOf(created.version)).send(ok({ role_type: toApiRoleType(created) }));
    },
  );

  app.patch(
    '/role-types/:key',
    {
      config: { requires: 'roles:write', etag: true, ifMatch: true },
      preParsing: admin.preParsing,
      schema: {
        params: Type.Object({ key: Type.String({ description: 'The role type key' }) }),
        tags,
        operationId: 'updateRoleType',
        summary: 'Change a role type',
        description: 'Label, permission, scope; needs `admin` on the root. Honours If-Match.',
        body: RoleTypeUpdateSchema,
        response: { 200: RoleTypeAnswer, 403: forbidden, 412: changedAnswer },
      },
    },
    async (request, reply) => {
      const key = (request.params as { key: string }).key;
      const updated = await changeRoleType(request.tenant.db, actorOf(admin.found(request)), key, request.body, request.headers['if-match']);
      reply.header('etag', etagOf(updated.version));
      return ok({ role_type: toApiRoleType(updated) });
    },
  );

  app.delete(
    '/role-types/:key',
    {
      config: { requires: 'roles:write', ifMatch: true },
      preParsing: admin.preParsing,
      schema: {
        params: Type.Object({ key: Type.String({ description: 'The role type key' }) }),
        tags,
        operationId: 'deleteRoleType',
        summary: 'Delete a role type',
        description: 'Needs `admin` on the root; 422 while any membership uses it. Honours If-Match.',
        response: { 204: NoContent, 403: forbidden, 412: changedAnswer, 422: { ...ValidationErrorSchema, description: 'The role type is still in use.' } },
      },
    },
    async (request, reply) => {
      await removeRoleType(request.tenant.db, actorOf(admin.found(request)), (request.params as { key: string }).key, request.headers['if-match']);
      return (reply as FastifyReply).code(204).send();
    },
  );
};

export default roleTypeRoutes;
