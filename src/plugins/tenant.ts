import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { Storage } from '../db/storage.js';
import type { TenantDatabase } from '../db/types.js';
import type { TenantDirectory } from '../domain/tenant-directory.js';
import { tenantSlugForHost, type HostRules } from '../domain/tenants.js';
import { ApiError } from '../errors.js';

export interface RequestTenant {
  slug: string;
  db: Kysely<TenantDatabase>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The tenant the Host header selected. Every route under /api can rely on it; only the hooks
     * that run before rejectUnknownTenant (auth, rate limit) can see null.
     */
    tenant: RequestTenant;
  }
}

export interface TenantPluginOptions {
  storage: Storage;
  directory: TenantDirectory;
  hostRules: HostRules;
}

/**
 * Ends a request whose Host selected no tenant with 404. Installed after the rate limiter, so
 * that probing for tenants is counted like anything else.
 */
export async function rejectUnknownTenant(request: FastifyRequest): Promise<void> {
  if (request.tenant === null) throw new ApiError('tenant_not_found', 'Tenant not found.');
}

/** Host -> tenant, for every request under /api. */
export default fp<TenantPluginOptions>(
  async function tenant(app: FastifyInstance, { storage, directory, hostRules }) {
    app.decorateRequest('tenant', null as unknown as RequestTenant);
    app.addHook('onRequest', async (request) => {
      const slug = tenantSlugForHost(request.host, hostRules);
      const found = slug === null ? null : await directory.find(slug);
      if (found) request.tenant = { slug: found.slug, db: storage.tenantDb(found.slug) };
    });
  },
  { name: 'tenant', dependencies: ['error-handler'] },
);
