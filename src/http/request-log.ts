import { randomUUID } from 'node:crypto';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type RawRequestDefaultExpression } from 'fastify';
import fp from 'fastify-plugin';
import { writeInfoLine } from '../lib/logger.js';

// HOT PATH (see docs/architecture.md): the access line, written by hand in pino's form.

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/**
 * The path is the caller's to choose (up to the 16 KiB of a request head): the line logs its
 * first 1,000 characters, so an access line stays well under the 4 KiB that reach a shared pipe
 * in one piece (see src/lib/log-writer.ts).
 */
const MAX_LOGGED_PATH = 1_000;
/**
 * A calendar feed's address is its only credential (modules/calendars): its route, and any path
 * that starts like it (matched or not), is logged as this, so that no feed token reaches a log.
 * The router decodes the path before matching (`/api/%63alendar/...` is the feed too): the route
 * catches those.
 */
const CALENDAR_PREFIX = '/api/calendar/';
const CALENDAR_ROUTE = '/api/calendar/:token.ics';
const CALENDAR_LOGGED_PATH = '/api/calendar/[token].ics';

/**
 * Whether a path that no route matched still starts like a feed's address once its escapes
 * (also escaped twice: a stray `%` is escaped again, http/url.ts) and doubled slashes are undone:
 * `/api/%63alendar/<token>` or `/api//calendar/<token>.ics` carry a live token just the same.
 */
function startsLikeFeed(path: string): boolean {
  let plain = path;
  for (let round = 0; round < 3 && plain.includes('%'); round++) plain = plain.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return plain.replace(/\/{2,}/g, '/').toLowerCase().startsWith(CALENDAR_PREFIX);
}

/** The path as the access line shows it: without the query string, secrets replaced, bounded. */
function loggedPath(url: string, route: string | null): string {
  const fullPath = url.split('?')[0] ?? '';
  if (route === CALENDAR_ROUTE || fullPath.toLowerCase().startsWith(CALENDAR_PREFIX)) return CALENDAR_LOGGED_PATH;
  // Only the rare path with an escape or a doubled slash pays for the closer look.
  if (/%|\/\//.test(fullPath) && startsLikeFeed(fullPath)) return CALENDAR_LOGGED_PATH;
  return fullPath.length > MAX_LOGGED_PATH ? `${fullPath.slice(0, MAX_LOGGED_PATH)}...` : fullPath;
}

/** A request id: the caller's X-Request-Id when it is a plain token, else a new UUID. */
export function requestIdFor(raw: RawRequestDefaultExpression): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * One log line per request, when it is answered: id, method, route, path (without the query
 * string, which could carry anything), tenant, status and time. Headers and bodies are never
 * logged, so neither are credentials, passwords or tokens. Fastify's own two lines per request
 * are replaced by this one.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // The root logger with the id as a field: the request's own child logger is made only when
    // something else logs for the request (see lazyRequestLogger).
    const route = request.routeOptions.url ?? null;
    const path = loggedPath(request.url, route);
    const tenant = request.tenant?.slug ?? null;
    const ms = Math.round(reply.elapsedTime * 100) / 100;
    if (error) {
      const line = { reqId: request.id, method: request.method, route, path, tenant, status: reply.statusCode, ms, err: error };
      request.server.log.error(line, 'request');
      return;
    }
    // The same fields, in the same order, as JSON text: this line is written for every request.
    const fields =
      `"reqId":${JSON.stringify(request.id)},"method":${JSON.stringify(request.method)},` +
      `"route":${JSON.stringify(route)},"path":${JSON.stringify(path)},"tenant":${JSON.stringify(tenant)},` +
      `"status":${reply.statusCode},"ms":${ms}`;
    writeInfoLine(request.server.log, fields, 'request');
  }
}

/** Returns the request id as X-Request-Id, so a caller can quote it. */
export default fp(
  async function requestLog(app: FastifyInstance) {
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
  },
  { name: 'request-log' },
);
