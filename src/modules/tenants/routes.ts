import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Storage } from '../../db/storage.js';
import { errors } from '../../errors.js';
import { prohibitUnknownQuery } from '../../http/query.js';
import { Envelope, ValidationErrorSchema } from '../../http/schemas.js';
import { findTenantRecord } from './rules.js';
import { TenantSchema } from './schemas.js';

/** The tenants module's routes: GET /tenant, for any valid token whatever its abilities. */
const tenantRoutes: FastifyPluginAsyncTypebox<{ storage: Pick<Storage, 'registry'> }> = async (app, { storage }) => {
  app.get(
    '/tenant',
    {
      config: { requires: 'token' },
      schema: {
        operationId: 'getTenant',
        summary: 'My tenant',
        description: "The tenant's slug, name and time zone, for any valid token whatever its abilities.",
        response: {
          200: Envelope(Type.Object({ tenant: TenantSchema })),
          422: { ...ValidationErrorSchema, description: 'A query parameter this endpoint does not take' },
        },
      },
    },
    async (request) => {
      prohibitUnknownQuery(request.query, []);
      const tenant = await findTenantRecord(storage, request.tenant.slug);
      // Tenants are never removed while the service runs; one gone all the same is unknown.
      if (!tenant) throw errors.tenantNotFound();
      return { success: true, message: 'success', data: { tenant } };
    },
  );
};

export default tenantRoutes;
