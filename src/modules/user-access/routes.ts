import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Storage } from '../../db/storage.js';
import { errors } from '../../errors.js';
import { callerOf } from '../../http/auth.js';
import { ok } from '../../http/before-body.js';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import type { ResourceRouteOptions } from '../../http/route-kit.js';
import { Envelope } from '../../http/schemas.js';
import type { Access } from '../permissions/rules.js';
import { findTenantRecord } from '../tenants/rules.js';
import { accessSummary } from './rules.js';
import { UserAccessSchema } from './schemas.js';

interface UserAccessRouteOptions extends Pick<ResourceRouteOptions<Access>, 'accessOf'> {
  storage: Pick<Storage, 'registry'>;
}

/** GET /user/access: who the caller is and what they may do, for a client to offer no more. */
const userAccessRoutes: FastifyPluginAsyncTypebox<UserAccessRouteOptions> = async (app, { accessOf, storage }) => {
  refuseUnknownQueryParameters(app);
  app.get(
    '/user/access',
    {
      config: { requires: 'token' },
      schema: {
        tags: ['extensions'],
        operationId: 'getUserAccess',
        summary: 'What I may do',
        description:
          "The caller, the tenant, the role types, the caller's memberships active today with their groups' names, the permission held in each of those groups, the wards and the token of this request: what a client needs to offer only what the caller may do, in one request. Any valid token, whatever its abilities; the API checks every call again.",
        response: { 200: Envelope(UserAccessSchema) },
      },
    },
    async (request) => {
      const { user, tokenId } = callerOf(request);
      const access = await accessOf(request);
      const tenant = await findTenantRecord(storage, request.tenant.slug);
      if (!tenant) throw errors.tenantNotFound();
      const summary = await accessSummary(request.tenant.db, access);
      return ok({ user: { id: user.id, firstname: user.firstname, lastname: user.lastname }, tenant, ...summary, token_id: tokenId });
    },
  );
};

export default userAccessRoutes;
