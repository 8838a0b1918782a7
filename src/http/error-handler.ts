import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import { isStorageUnavailable, STORAGE_RETRY_AFTER_SECONDS } from '../db/errors.js';
import { ApiError, errors, type ErrorCode } from '../errors.js';

/**
 * The one place where errors become responses (docs/api/conventions.md). Handlers throw
 * ApiError; Fastify's own errors are mapped here; anything else is a 500 that hides its cause.
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** 404/405 answer; contexts with their own hooks (the /api prefix) install it as their not-found handler. */
    routeNotFound: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The 401, 403 and 422 answers that the original service turns into 419. */
const CSRF_CODES = new Set<ErrorCode>(['unauthenticated', 'login_failed', 'ability_missing', 'unauthorized', 'validation_failed']);

/** Does the first media type of the Accept header ask for JSON? `*\/*` alone does not count. */
export function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const first = (accept.split(',')[0] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return first.includes('/json') || first.includes('+json');
}

/**
 * The original service answers 419 ("CSRF token mismatch") instead of 401/403/422 when a
 * state-changing request carries no token and does not ask for JSON: it took such a request
 * for a browser form. Clients rely on seeing the same.
 */
function isCsrfMismatch(request: FastifyRequest, code: ErrorCode): boolean {
  return (
    CSRF_CODES.has(code) &&
    UNSAFE_METHODS.has(request.method) &&
    request.headers.authorization === undefined &&
    !acceptsJson(request.headers.accept)
  );
}

function fromFastifyError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.malformedJson();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? errors.unsupportedMediaType()
        : errors.malformedJson();
  }
  if (isStorageUnavailable(error)) {
    return errors.serviceUnavailable(STORAGE_RETRY_AFTER_SECONDS);
  }
  if (error instanceof SyntaxError) return errors.malformedJson();
  return errors.serverError();
}

export function renderError(error: ApiError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isCsrfMismatch(request, error.code)) {
    error = errors.csrfMismatch();
  }
  reply.code(error.statusCode);
  const { fieldErrors, allow, retryAfterSeconds } = error.details;
  if (allow) reply.header('allow', allow.join(', '));
  if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
  switch (error.code) {
    case 'unauthenticated':
      return reply.send({ message: error.message });
    case 'too_many_attempts':
      return reply.send({ message: error.message, retry_after: retryAfterSeconds ?? 1 });
    case 'validation_failed':
      return reply.send({ success: false, message: error.message, errors: fieldErrors ?? {} });
    default:
      return reply.send({ success: false, message: error.message });
  }
}


export default fp(
  async function errorHandler(app: FastifyInstance) {
    // Every route is also entered here, to tell "wrong method" (405) from "no such route" (404).
    const routes = FindMyWay({ ignoreTrailingSlash: true });
    const noop = () => undefined;
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      // Catch-all routes (CORS preflight: OPTIONS *) would make every unknown path a 405.
      if (route.url.includes('*')) return;
      for (const method of methods) {
        if (!routes.hasRoute(method as never, route.url)) routes.on(method as never, route.url, noop);
      }
    });
    const allowedMethods = (url: string) =>
      ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => routes.find(m as never, url) !== null);

    app.setErrorHandler((error: FastifyError, request, reply) => {
      const apiError = fromFastifyError(error);
      if (apiError.code === 'service_unavailable' && !(error instanceof ApiError)) {
        request.log.warn({ err: { message: error.message, code: error.code } }, 'storage unavailable');
      } else if (apiError.statusCode >= 500) {
        request.log.error({ err: error }, 'request failed');
      }
      return renderError(apiError, request, reply);
    });

    const routeNotFound = (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0] ?? '/';
      const allow = allowedMethods(path);
      // The messages name the path as the client sent it (http/url.ts may have escaped a stray `%`).
      if (allow.length > 0) return renderError(errors.methodNotAllowed(request.method, request.originalUrl, allow), request, reply);
      return renderError(errors.routeNotFound(request.originalUrl), request, reply);
    };
    app.setNotFoundHandler(routeNotFound);
    app.decorate('routeNotFound', routeNotFound);
  },
  { name: 'error-handler' },
);
