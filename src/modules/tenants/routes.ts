import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Storage } from '../../db/storage.js';
import { errors } from '../../errors.js';
import { beforeBody, ok } from '../../http/before-body.js';
import { prohibitUnknownQuery } from '../../http/query.js';
import { forbiddenAnswer, type ResourceRouteOptions } from '../../http/route-kit.js';
import { Envelope, ValidationErrorSchema } from '../../http/schemas.js';
import { isRootAdmin, type Access } from '../permissions/rules.js';
import { changeTenantSettings, findTenantRecord } from './rules.js';
import { TenantSchema, TenantUpdateSchema } from './schemas.js';

interface TenantRouteOptions extends Pick<ResourceRouteOptions<Access>, 'accessOf'> {
  storage: Pick<Storage, 'registry' | 'invalidations'>;
}

const TenantAnswer = Envelope(Type.Object({ tenant: TenantSchema }));

/** The tenants module's routes: GET /tenant for any valid token, PATCH /tenant for administrators. */
const tenantRoutes: FastifyPluginAsyncTypebox<TenantRouteOptions> = async (app, { storage, accessOf }) => {
  app.get(
    '/tenant',
    {
      config: { requires: 'token' },
      schema: {
        operationId: 'getTenant',
        summary: 'My tenant',
        description: "The tenant's slug, name, time zone and language, for any valid token whatever its abilities.",
        response: {
          200: TenantAnswer,
          422: { ...ValidationErrorSchema, description: 'A query parameter this endpoint does not take' },
        },
      },
    },
    async (request) => {
      prohibitUnknownQuery(request.query, []);
      const tenant = await findTenantRecord(storage, request.tenant.slug);
      // Tenants are never removed while the service runs; one gone all the same is unknown.
      if (!tenant) throw errors.tenantNotFound();
      return ok({ tenant });
    },
  );

  // admin on the root, checked before the body is read.
  const admin = beforeBody(async (request) => {
    if (!isRootAdmin(await accessOf(request))) throw errors.unauthorized();
  });

  app.patch(
    '/tenant',
    {
      config: { requires: 'tenant:write' },
      preParsing: admin.preParsing,
      schema: {
        operationId: 'updateTenant',
        summary: 'Change my tenant',
        description:
          "Needs `admin` on the root. `name` (1-255), `timezone` (an IANA name, kept in its canonical spelling) and `locale` (`de`, `en`, `fr`: the language of the tenant's mails), each optional. " +
          "Events keep their moment in time (they are stored in UTC); \"today\" moves with the zone on every instance at once. The root group keeps its name.",
        querystring: Type.Object({}, { additionalProperties: false }),
        body: TenantUpdateSchema,
        response: {
          200: TenantAnswer,
          403: forbiddenAnswer('admin on the root needed'),
          422: { ...ValidationErrorSchema, description: 'The timezone field must be a valid timezone., The selected locale is invalid., or the name' },
        },
      },
    },
    async (request) => {
      admin.found(request);
      const tenant = await changeTenantSettings(storage, request.tenant.slug, request.body);
      if (!tenant) throw errors.tenantNotFound();
      return ok({ tenant });
    },
  );
};

export default tenantRoutes;
