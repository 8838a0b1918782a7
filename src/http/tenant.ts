import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { Storage } from '../db/storage.js';
import type { TenantDatabase } from '../db/types.js';
import { errors } from '../errors.js';
import { tenantSlugForHost, type HostRules } from '../lib/tenant-hosts.js';

// HOT PATH (see docs/architecture.md): Host -> tenant without a promise when the tenant is known.

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

/** Which tenants exist: answered from memory for most requests (modules/tenants/directory.ts). */
export interface TenantLookup {
  /** What memory knows without asking the registry: the tenant, null (known missing), or undefined. */
  peek(slug: string): { slug: string } | null | undefined;
  find(slug: string): Promise<{ slug: string } | null>;
}

export interface TenantPluginOptions {
  storage: Pick<Storage, 'tenantDb'>;
  directory: TenantLookup;
  hostRules: HostRules;
}

/**
 * Ends a request whose Host selected no tenant with 404. Checked after the rate limiter, so that
 * probing for tenants is counted like anything else (see admitRequest in app.ts).
 */
export function requireKnownTenant(request: FastifyRequest): void {
  if (request.tenant === null) throw errors.tenantNotFound();
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
      const attach = (found: { slug: string } | null) => {
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
