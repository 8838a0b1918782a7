import { randomUUID } from 'node:crypto';
import type { FastifyInstance, RawRequestDefaultExpression } from 'fastify';
import fp from 'fastify-plugin';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A request id: the caller's X-Request-Id when it is a plain token, else a new UUID. */
export function requestIdFor(raw: RawRequestDefaultExpression): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * One log line per request: id, method, route, path (without the query string, which could
 * carry anything), status and time. Headers and bodies are never logged, so neither are
 * credentials, passwords or tokens. The id is returned as X-Request-Id, so a caller can quote it.
 */
export default fp(
  async function requestLog(app: FastifyInstance) {
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id);
    });
    app.addHook('onResponse', async (request, reply) => {
      request.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          path: request.url.split('?')[0],
          tenant: request.tenant?.slug ?? null,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request',
      );
    });
  },
  { name: 'request-log' },
);
