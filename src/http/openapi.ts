import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import {
  ErrorSchema,
  TooManyAttemptsSchema,
  UnauthenticatedSchema,
  ValidationErrorSchema,
} from './schemas.js';

/** Where the interactive reference lives; its page needs a content policy of its own. */
export const DOCS_PREFIX = '/api/docs';

/** The two endpoints of the original interface, POST /login and GET /user; everything else is an extension. */
const ORIGINAL = new Set(['POST /api/login', 'GET /api/user']);
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const described = (description: string, schema: object) => ({ ...schema, description });
const error = (description: string) => described(description, ErrorSchema);

/**
 * The error answers a route can give, from what it declares: a body, a required token or
 * ability, its method. They are documented only; the error handler renders them.
 */
function errorResponses(url: string, method: string, hasBody: boolean, hasQuery: boolean, requires: string | undefined) {
  const responses: Record<string, object> = {
    404: error('Tenant not found (unknown host), or the resource does not exist'),
    429: described('Rate limit exceeded; see Retry-After', TooManyAttemptsSchema),
    500: error('Server Error (details only in the log)'),
    503: error('Service Unavailable: storage unreachable or maintenance; see Retry-After'),
  };
  if (hasBody) {
    responses[400] = error('Malformed JSON body.');
    responses[413] = error('Body larger than BODY_LIMIT');
    responses[415] = error('The body is not JSON');
    responses[422] = described('Validation failed', ValidationErrorSchema);
  }
  if (hasQuery) responses[422] = described('Validation failed: a query parameter of a wrong type, a forged cursor, or one this endpoint does not take', ValidationErrorSchema);
  if (url === '/api/login') responses[401] = error('Login Fail, pls check password');
  if (requires) {
    responses[401] = described('Missing, malformed, unknown, revoked or expired token', UnauthenticatedSchema);
    if (requires !== 'token') responses[403] = error('Invalid ability provided.');
  }
  if (UNSAFE.has(method) && (hasBody || requires || url === '/api/login')) {
    responses[419] = error('CSRF token mismatch.: no Authorization header and Accept does not ask for JSON');
  }
  return responses;
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window, never below 0', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) at which the window ends', schema: { type: 'integer' } },
};

type OpenApiDocument = {
  paths?: Record<string, Record<string, { responses?: Record<string, { headers?: object }> }>>;
};

/** Every answer under /api carries the rate-limit headers; a 429 (and a 503 when known) adds Retry-After. */
function addHeaders(document: OpenApiDocument): OpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = {
          ...RATE_LIMIT_HEADERS,
          ...(status === '429' || status === '503'
            ? { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } }
            : {}),
        };
      }
    }
  }
  return document;
}

export interface OpenApiOptions {
  serviceDomain: string;
  version: string;
}

/** The OpenAPI 3.1 document, generated from the route schemas that also validate requests. */
export default fp<OpenApiOptions>(
  async function openapi(app: FastifyInstance, { serviceDomain, version }) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'groupadmin API',
          version,
          description:
            'Group administration: login and current user (the original interface), plus extensions (marked x-extension): token and profile self-service, groups, role types, people, memberships and guardians.',
          contact: { name: 'groupadmin' },
          // The package is not published under a licence (package.json: UNLICENSED).
          license: { name: 'UNLICENSED', identifier: 'LicenseRef-groupadmin-proprietary' },
        },
        servers: [
          {
            url: 'https://{tenant}.{domain}/api',
            variables: { tenant: { default: 'demo', description: 'your subdomain' }, domain: { default: serviceDomain } },
          },
        ],
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'A token from POST /login: "<id>|<secret>"' },
          },
        },
        tags: [
          { name: 'original', description: 'The interface of the original service' },
          { name: 'extensions', description: 'Beyond the original interface' },
          { name: 'groups', description: 'The group tree of a tenant' },
          { name: 'roles', description: 'Role types and their permissions' },
          { name: 'people', description: 'People, their guardians and wards' },
          { name: 'memberships', description: 'Who holds which role in which group, and when' },
          { name: 'events', description: 'Camps, meetings and courses of a group' },
          { name: 'participations', description: 'Registration, waiting lists and the participant lists' },
          { name: 'changes', description: 'The change feed for systems kept in step' },
          { name: 'webhooks', description: 'Signed deliveries of the change records to another system' },
        ],
      },
      transform: ({ schema, url, route }) => {
        if (!url.startsWith('/api/') || url === '/api/openapi.json' || url.startsWith(DOCS_PREFIX)) {
          return { schema: { ...schema, hide: true }, url };
        }
        const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
        const requires = (route.config as { requires?: string } | undefined)?.requires;
        const original = ORIGINAL.has(`${method} ${url}`);
        const responses = {
          ...errorResponses(url, method, Boolean(schema?.body), Boolean(schema?.querystring), requires),
          ...((schema?.response as Record<string, object> | undefined) ?? {}),
        };
        return {
          url: url.slice('/api'.length),
          schema: {
            ...schema,
            response: responses,
            // Extensions name their resource's tag (groups, people ...); the rest are "extensions".
            tags: original ? ['original'] : ((schema as { tags?: string[] } | undefined)?.tags ?? ['extensions']),
            ...(original ? {} : { 'x-extension': true }),
            ...(requires ? { security: [{ bearer: [] }] } : {}),
          },
        };
      },
      transformObject: (documents) => addHeaders((documents as { openapiObject: OpenApiDocument }).openapiObject) as never,
    });

    // Not under the tenant and rate-limit hooks: the contract is the same for everyone.
    app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

    // The interactive reference, served from the npm package (no CDN, works offline). Its "try it"
    // calls go to the host the page was loaded from, i.e. the tenant's own API.
    await app.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      uiConfig: { tryItOutEnabled: true, displayRequestDuration: true },
      staticCSP: true,
      // The page talks to this very host over whatever scheme it was loaded with.
      transformStaticCSP: (header) => `${header.replace(/\s*upgrade-insecure-requests;?/, '')} connect-src 'self';`,
      transformSpecification: (document, request) => ({
        ...document,
        servers: [{ url: `${request.protocol}://${request.host}/api` }],
      }),
    });
  },
  { name: 'openapi', dependencies: ['error-handler'] },
);
