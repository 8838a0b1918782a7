import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { Storage } from '../db/storage.js';
import type { TenantRow } from '../db/tenants.js';
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
     * that run before requireKnownTenant (auth, rate limit) can see null.
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
 * Ends a request whose Host selected no tenant with 404. Checked after the rate limiter, so that
 * probing for tenants is counted like anything else (see admitRequest in app.ts).
 */
export function requireKnownTenant(request: FastifyRequest): void {
  if (request.tenant === null) throw new ApiError('tenant_not_found', 'Tenant not found.');
}

/** Host -> tenant, for every request under /api. */
export default fp<TenantPluginOptions>(
  async function tenant(app: FastifyInstance, { storage, directory, hostRules }) {
    app.decorateRequest('tenant', null as unknown as RequestTenant);
    // Host -> slug is pure and hosts repeat: remember the last few thousand answers.
    const slugs = new Map<string | undefined, string | null>();
    const slugFor = (host: string | undefined) => {
      let slug = slugs.get(host);
      if (slug === undefined) {
        slug = tenantSlugForHost(host, hostRules);
        if (slugs.size >= 4096) slugs.clear();
        slugs.set(host, slug);
      }
      return slug;
    };

    // Synchronous when the tenant is known (almost always): no promise on the hot path.
    app.addHook('onRequest', (request, _reply, done) => {
      const attach = (found: TenantRow | null) => {
        // Opening a tenant's database can fail (a missing file): that is the error handler's 503.
        try {
          if (found) request.tenant = { slug: found.slug, db: storage.tenantDb(found.slug) };
          done();
        } catch (err) {
          done(err as Error);
        }
      };
      const slug = slugFor(request.host);
      if (slug === null) return done();
      const known = directory.peek(slug);
      if (known !== undefined) return attach(known);
      directory.find(slug).then(attach, done);
    });
  },
  { name: 'tenant', dependencies: ['error-handler'] },
);
