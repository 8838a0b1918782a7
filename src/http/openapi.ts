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
  if (url === '/api/login' || url === '/api/session') responses[401] = error('Login Fail, pls check password');
  if (requires) {
    responses[401] = described('Missing, malformed, unknown, revoked or expired token', UnauthenticatedSchema);
    if (requires !== 'token') responses[403] = error('Invalid ability provided.');
  }
  if (UNSAFE.has(method)) {
    responses[419] = error(
      'CSRF token mismatch.: the session cookie without an X-XSRF-TOKEN header equal to the XSRF-TOKEN cookie, or from another origin; or no Authorization header and Accept does not ask for JSON',
    );
  }
  return responses;
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window, never below 0', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) at which the window ends', schema: { type: 'integer' } },
};

// The headers below are declared from what a route says of itself: `config.etag` and
// `config.ifMatch` (test/contract/openapi-headers.test.ts holds them to the handlers), the
// Idempotency-Key header the idempotency plugin gives a POST, and a response that lists text/csv.
// They are added to the document only: at run time the route's schemas stay as they are.

const ETAG_HEADER = { type: 'string', description: 'The version of the resource, quoted ("7"); send it back in If-Match' };
const IF_MATCH_HEADER = {
  type: 'string',
  description: 'Change only the version this ETag names (a list, or * for any); 412 when the resource has changed since. Without it the last write wins.',
};
const REPLAYED_HEADER = { type: 'string', enum: ['true'], description: 'This is the stored answer to an earlier request with the same Idempotency-Key, given again' };
const DISPOSITION_HEADER = { type: 'string', description: 'With a file answer (CSV, or XLSX or vCard where the list offers it): attachment; filename="<name>.csv", "<name>.xlsx" or "<name>.vcf"' };

/** The request header the idempotency plugin declares on the POST routes that take part (src/modules/idempotency). */
const IDEMPOTENCY_KEY = 'idempotency-key';
/**
 * Answers given before an Idempotency-Key is claimed (the pipeline, the body's checks) and the
 * refusal of a key in use are never stored, so never replayed; nor is a 5xx (the retry runs again).
 */
const NEVER_REPLAYED = new Set(['400', '401', '409', '413', '415', '419', '429']);

type Schema = { headers?: Record<string, object>; content?: Record<string, unknown> };
type ObjectSchema = { properties?: Record<string, unknown> };

/** A copy of a response schema with more headers (the route's own schema is not touched). */
const withResponseHeaders = (response: Schema, headers: Record<string, object>): Schema =>
  Object.keys(headers).length === 0 ? response : { ...response, headers: { ...response.headers, ...headers } };

/** The headers each documented answer of a route carries, from what the route declares. */
function declareResponseHeaders(responses: Record<string, Schema>, route: { etag: boolean; idempotent: boolean }) {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const headers: Record<string, object> = {};
      // A success with a body is the resource; a 204 has none to name.
      if (route.etag && status.startsWith('2') && status !== '204') headers.ETag = ETAG_HEADER;
      if (route.idempotent && Number(status) < 500 && !NEVER_REPLAYED.has(status)) headers['Idempotent-Replayed'] = REPLAYED_HEADER;
      if (response.content?.['text/csv'] !== undefined) headers['Content-Disposition'] = DISPOSITION_HEADER;
      return [status, withResponseHeaders(response, headers)];
    }),
  );
}

/** The route's header parameters with If-Match added. */
function withIfMatch(headers: ObjectSchema | undefined): object {
  return { type: 'object', ...headers, properties: { ...headers?.properties, 'If-Match': IF_MATCH_HEADER } };
}

type Parameter = { in?: string; name?: string; schema?: object };
type OpenApiDocument = {
  paths?: Record<string, Record<string, { parameters?: Parameter[]; responses?: Record<string, { headers?: object }> }>>;
};

/**
 * Every answer under /api carries the rate-limit headers; a 429 (and a 503 when known) adds
 * Retry-After. Path ids are integers from 1 in the document: at run time they stay strings, so
 * that `abc`, `0` or 200 digits are the route's 404 rather than a 422 (parseId in before-body.ts).
 */
function completeDocument(document: OpenApiDocument): OpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = {
          ...RATE_LIMIT_HEADERS,
          ...(status === '429' || status === '503'
            ? { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } }
            : {}),
          ...response.headers,
        };
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path' && (parameter.name === 'id' || parameter.name?.endsWith('_id'))) parameter.schema = { type: 'integer', minimum: 1 };
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
            session: {
              type: 'apiKey',
              in: 'cookie',
              name: 'groupadmin_session',
              description: 'A browser\'s session from POST /session (`__Host-groupadmin_session` over HTTPS). Writes need the X-XSRF-TOKEN header equal to the XSRF-TOKEN cookie (GET /csrf-cookie). Used only without an Authorization header.',
            },
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
        const { requires, etag, ifMatch } = (route.config ?? {}) as { requires?: string; etag?: boolean; ifMatch?: boolean };
        const original = ORIGINAL.has(`${method} ${url}`);
        const requestHeaders = schema?.headers as ObjectSchema | undefined;
        const responses = declareResponseHeaders(
          {
            ...errorResponses(url, method, Boolean(schema?.body), Boolean(schema?.querystring), requires),
            ...((schema?.response as Record<string, Schema> | undefined) ?? {}),
          },
          { etag: etag === true, idempotent: requestHeaders?.properties?.[IDEMPOTENCY_KEY] !== undefined },
        );
        return {
          url: url.slice('/api'.length),
          schema: {
            ...schema,
            ...(ifMatch === true ? { headers: withIfMatch(requestHeaders) } : {}),
            response: responses,
            // Extensions name their resource's tag (groups, people ...); the rest are "extensions".
            tags: original ? ['original'] : ((schema as { tags?: string[] } | undefined)?.tags ?? ['extensions']),
            ...(original ? {} : { 'x-extension': true }),
            ...(requires ? { security: [{ bearer: [] }, { session: [] }] } : {}),
          },
        };
      },
      transformObject: (documents) => completeDocument((documents as { openapiObject: OpenApiDocument }).openapiObject) as never,
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
