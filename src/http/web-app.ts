import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../lib/package-root.js';
import { tenantSlugForHost, type HostRules } from '../lib/tenant-hosts.js';
import type { TenantLookup } from './tenant.js';

/** Where `vite build` puts the web app. */
export const WEB_ROOT = join(PACKAGE_ROOT, 'dist/web/');

/**
 * The pages' content policy: scripts, styles and API calls from this origin only, no inline script
 * or style, no framing. The API's own answers keep their stricter `default-src 'none'`.
 */
export const WEB_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const UNKNOWN_TENANT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found</title></head>
<body><main>
<h1>This address belongs to no group</h1>
<p>Please check the address your club or group gave you.</p>
<p lang="de">Diese Adresse gehört zu keiner Gruppe. Bitte prüfe die Adresse, die du von deinem Verein oder deiner Gruppe erhalten hast.</p>
</main></body></html>
`;

export interface WebAppOptions {
  directory: TenantLookup;
  hostRules: HostRules;
  /** The built app; without it (`vite build` not run) `/` is not served. */
  root?: string;
}

/**
 * Serves the web app (web/, issue: web app) at `/` for a known tenant's host: index.html never
 * cached, its hashed assets cached for a year. An unknown tenant's host gets a plain page in
 * English and German, as 404. The app talks to `/api` only, like any other client.
 */
export async function webApp(app: FastifyInstance, { directory, hostRules, root = WEB_ROOT }: WebAppOptions): Promise<void> {
  const indexFile = `${root}index.html`;
  if (!existsSync(indexFile)) {
    app.log.info({ root }, 'the web app is not built (npm run build): / is not served');
    return;
  }
  const index = readFileSync(indexFile);
  const knownTenant = async (request: FastifyRequest): Promise<boolean> => {
    const slug = tenantSlugForHost(request.host, hostRules);
    if (slug === null) return false;
    const known = directory.peek(slug);
    return (known === undefined ? await directory.find(slug) : known) !== null;
  };
  // A link from a mail carries its token in the fragment, which the app removes at once; same-origin
  // keeps even the page's own address (and any query) from other sites it links to.
  const page = (reply: FastifyReply) =>
    reply.header('content-security-policy', WEB_CSP).header('referrer-policy', 'same-origin').type('text/html; charset=utf-8');

  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (!(await knownTenant(request))) return page(reply).code(404).header('cache-control', 'no-store').send(UNKNOWN_TENANT_PAGE);
    return page(reply).header('cache-control', 'no-cache').send(index);
  });
  await app.register(fastifyStatic, {
    root: `${root}assets`,
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    wildcard: true,
    // File names carry their content's hash: a changed file is a new name.
    immutable: true,
    maxAge: '365d',
    cacheControl: true,
    etag: false,
    lastModified: false,
  });
}
