import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { openCacheChangeFeed } from './db/invalidation/feed.js';
import { isTenantSettingsChange, type CacheChange } from './db/invalidation/queries.js';
import type { Storage } from './db/storage.js';
import authPlugin, { enforceRequirement } from './http/auth.js';
import batchedAnswers from './http/batched-answers.js';
import errorHandler from './http/error-handler.js';
import healthRoutes from './http/health.js';
import csrfCookieRoute from './http/csrf-cookie.js';
import jsonBody from './http/json-body.js';
import openapi from './http/openapi.js';
import { createRateLimits, type RateLimits } from './http/rate-limit/limiter.js';
import rateLimitPlugin from './http/rate-limit/plugin.js';
import requestLog, { RequestLogController, requestIdFor } from './http/request-log.js';
import { decodableUrl } from './http/url.js';
import security from './http/security.js';
import tenantPlugin, { requireKnownTenant, type TenantLookup } from './http/tenant.js';
import { createLogger, lazyRequestLogger } from './lib/logger.js';
import { toDbTimestamp } from './lib/time.js';
import authRoutes from './modules/auth/routes.js';
import sessionRoutes from './modules/auth/session-routes.js';
import historyRoutes from './history/routes.js';
import changeRoutes from './modules/changes/routes.js';
import webhookRoutes from './modules/webhooks/routes.js';
import accountRoutes from './modules/accounts/routes.js';
import { notifyEmailChange } from './modules/accounts/rules.js';
import mailRoutes from './modules/mail/routes.js';
import { createMailHub, type MailHub } from './modules/mail/settings.js';
import messageRoutes from './modules/messages/routes.js';
import { createTenantLetterheads } from './modules/notifications/rules.js';
import { webApp } from './http/web-app.js';
import idempotency from './modules/idempotency/plugin.js';
import maintenance from './modules/maintenance/plugin.js';
import { createTenantDirectory } from './modules/tenants/directory.js';
import tenantRoutes from './modules/tenants/routes.js';
import { tenantTimeZone } from './modules/tenants/rules.js';
import { createTokenAuthenticator } from './modules/tokens/authenticator.js';
import { createLastUseRecorder } from './modules/tokens/last-use.js';
import tokenRoutes from './modules/tokens/routes.js';
import { createTokenVerifier } from './modules/tokens/verifier.js';
import userRoutes from './modules/users/routes.js';
import groupRoutes from './modules/groups/routes.js';
import roleTypeRoutes from './modules/role-types/routes.js';
import membershipRoutes from './modules/memberships/routes.js';
import memberRoutes from './modules/members/routes.js';
import peopleRoutes from './modules/people/routes.js';
import peopleImportRoutes from './modules/people-import/routes.js';
import userExportRoutes from './modules/user-export/routes.js';
import userAccessRoutes from './modules/user-access/routes.js';
import agendaRoutes from './modules/agenda/routes.js';
import calendarRoutes from './modules/calendars/routes.js';
import { createCalendarFiles } from './modules/calendars/files.js';
import { createPersonJsonMemory } from './modules/people/json-memory.js';
import eventRoutes from './modules/events/routes.js';
import participationRoutes from './modules/participations/routes.js';
import { createTenantCalendar } from './modules/permissions/calendar.js';
import { createRoleMemory } from './modules/permissions/memory.js';
import { createRequestAccess } from './modules/permissions/request.js';
import { createCursorCodec, cursorScope } from './http/paging.js';
import { readOrCreateSetting } from './db/settings.js';
import { serializerCompiler } from './http/serializer.js';
import { PACKAGE_ROOT } from './lib/package-root.js';
import { createGroupMemory } from './modules/groups/memory.js';
import { enforceCsrf } from './http/session.js';

const { version: SERVICE_VERSION } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
const REDIS_CONNECT_WAIT_MS = 2000;
/**
 * Token uses are written in batches this often (last_used_at is at most this much behind), and
 * within a minute in tenants whose SQLite file is closed (see createLastUseRecorder).
 */
const LAST_USE_FLUSH_MS = 1000;
const LAST_USE_CLOSED_TENANT_DELAY_MS = 60_000;
/**
 * The feed of cache changes is read this often; remembered token rows are used only while the
 * last read began less than CHANGE_FEED_TRUST_MS ago, so a change made on another instance takes
 * effect everywhere within that (changes made here take effect here at once).
 */
const CHANGE_FEED_READ_MS = 250;
const CHANGE_FEED_TRUST_MS = 750;

export interface AppDeps {
  /** Storage the caller owns (opened and migrated); the app never closes it. */
  storage: Storage;
  directory?: TenantLookup;
  /** Where log lines go; pino's default is standard output. */
  logger?: FastifyServerOptions['loggerInstance'];
  now?: () => Date;
  /** Counters to use instead of the ones the configuration describes. */
  rateLimits?: RateLimits;
  /** 'cluster' in the workers of WORKERS > 1: counters without Redis live in the primary. */
  localRateLimitStore?: 'memory' | 'cluster';
}

/** Builds the whole service without listening, so the server, the CLI and tests share it. */
/** Longer than any request line Node accepts (MAX_HEADER_SIZE is at most 1 MiB): the router never refuses a parameter. */
const MAX_PATH_PARAMETER_LENGTH = 1024 * 1024 + 1;

declare module 'fastify' {
  interface FastifyInstance {
    /** The mail of this process: its configuration, and the wake-up call of its worker (server/serve.ts). */
    mailHub: MailHub;
  }
}

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { storage } = deps;
  const mail = createMailHub(config.mail);
  // Slow and greedy clients: bounded time for headers and for a whole request, bounded header size.
  const serverOptions = {
    headersTimeout: config.headersTimeoutMs,
    maxHeaderSize: config.maxHeaderSize,
    connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
  };
  const app = Fastify({
    loggerInstance: deps.logger ?? createLogger(config.logLevel),
    logController: new RequestLogController(),
    childLoggerFactory: lazyRequestLogger,
    ...(config.tls
      ? { https: { ...serverOptions, cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } }
      : { http: serverOptions }),
    // Fastify accepts a hop count at run time; its types only miss the number form.
    trustProxy: config.trustProxy as boolean | string[],
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // While stopping, a request that reached us on an open connection is still answered properly.
    return503OnClosing: false,
    genReqId: requestIdFor,
    rewriteUrl: decodableUrl,
    // A path parameter of any length reaches its route, which answers an id it cannot read like any
    // unknown id (401 without a token, else 404) in the API's envelope with its rate-limit headers.
    // The router's own limit (100) would answer 414 with the framework's body, before authentication.
    // Node's header limit (MAX_HEADER_SIZE) bounds the request line, so no parameter is unbounded.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER_LENGTH },
  } as FastifyServerOptions) as unknown as FastifyInstance;
  app.server.maxConnections = config.maxConnections;
  app.decorate('mailHub', mail);
  app.setSerializerCompiler(serializerCompiler);
  closeConnectionsWhenStopping(app);
  // Registered first, so its onSend hook runs after that of closeConnectionsWhenStopping.
  await app.register(batchedAnswers);

  await app.register(errorHandler);
  await app.register(requestLog);
  await app.register(security, { corsOrigins: config.corsOrigins, requireHttps: config.requireHttps });
  await app.register(jsonBody);
  await app.register(healthRoutes, { storage });
  await app.register(openapi, { serviceDomain: config.serviceDomain, version: SERVICE_VERSION });
  // After the OpenAPI plugin, which documents the routes registered after it.
  await app.register(csrfCookieRoute);

  const directory = deps.directory ?? createTenantDirectory(storage);
  // The web app for group leaders and parents, at `/`: a client of the API like any other.
  await app.register(webApp, { directory, hostRules: { serviceDomain: config.serviceDomain, defaultTenant: config.defaultTenant } });
  const cursors = createCursorCodec(await sharedCursorSecret(storage));
  const rateLimits = deps.rateLimits ?? (await createConfiguredRateLimits(app, config, deps.localRateLimitStore ?? 'memory'));
  const lastUse = createLastUseRecorder({
    flushIntervalMs: LAST_USE_FLUSH_MS,
    isOpen: (tenant) => storage.isTenantOpen(tenant),
    closedDelayMs: LAST_USE_CLOSED_TENANT_DELAY_MS,
    onError: (err) => app.log.warn({ err }, 'could not record token use'),
  });
  const isCurrent = () => changeFeed.isCurrent();
  const sessions = { idleMs: config.sessionIdleMs, rememberMs: config.sessionRememberMs };
  const verifier = createTokenVerifier({ storage, isCurrent, sessions });
  const peopleJson = createPersonJsonMemory({ isCurrent });
  // What this process changes, it forgets at once; what others change arrives through the feed.
  // "Today" in each tenant's zone; a new zone is heard of like any other change.
  const calendar = createTenantCalendar((slug) => tenantTimeZone(storage, slug), deps.now);
  const forget = (change: CacheChange) => {
    verifier.forget(change);
    peopleJson.forget(change);
    if (isTenantSettingsChange(change)) calendar.forget(change.tenant);
  };
  const unsubscribe = storage.invalidations.subscribe(forget);
  const changeFeed = await openCacheChangeFeed(storage, {
    intervalMs: CHANGE_FEED_READ_MS,
    trustMs: CHANGE_FEED_TRUST_MS,
    onChange: forget,
    onReset: () => {
      verifier.forgetAll();
      peopleJson.forgetAll();
    },
    onError: (err) => app.log.warn({ err }, 'could not read or write the feed of cache changes; reading tokens from the database meanwhile'),
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    verifier.stop();
    await changeFeed.stop();
    await lastUse.stop();
    (app.log as Logger).flush();
  });

  await app.register(
    async (api) => {
      // The order of these hooks is the order of the checks: maintenance, tenant, token, rate
      // limit, then the unknown-tenant answer (so probing for tenants is counted too) and the
      // route's token requirement, all before the body is read.
      await api.register(maintenance, { storage });
      await api.register(tenantPlugin, {
        storage,
        directory,
        hostRules: { serviceDomain: config.serviceDomain, defaultTenant: config.defaultTenant },
      });
      await api.register(authPlugin, {
        authenticator: createTokenAuthenticator({ verifier, lastUse, sessions, onError: (err) => app.log.warn({ err }, 'could not delete an ended session') }),
        sessionRememberMs: sessions.rememberMs,
        ...(deps.now ? { now: deps.now } : {}),
      });
      await api.register(rateLimitPlugin, { limits: rateLimits });
      // A POST repeated with its Idempotency-Key answers as the first did.
      await api.register(idempotency);
      api.addHook('onRequest', admitRequest);
      api.setNotFoundHandler(app.routeNotFound);
      // One plugin per module: the original interface (login, current user) and its extensions.
      const { tokenPrefix } = config;
      await api.register(authRoutes, { tokenPrefix, sessions });
      await api.register(sessionRoutes, { tokenPrefix, sessions });
      // Mail names the tenant in its language: read once a second per tenant, not per request.
      const letterheads = createTenantLetterheads(storage);
      await api.register(userRoutes, {
        // A new address of one's own: the old one hears of it, in the same commit.
        onProfileChange: (request, trx, before, after) => notifyEmailChange(trx, { hub: mail, letterheads, slug: request.tenant.slug }, before, after, null),
        afterMailQueued: (request) => mail.wake(request.tenant.slug),
      });
      await api.register(tokenRoutes, { tokenPrefix, sessions });
      // The group administration core: groups, role types, people, memberships.
      const cursorsOf = (request: FastifyRequest) => cursors.scoped(cursorScope(request.tenant.slug, request.query as Record<string, unknown>));
      const writes = (tenant: string) => storage.invalidations.writes(tenant);
      const resources = { cursorsOf, accessOf: createRequestAccess(calendar, createRoleMemory({ writes })) };
      await api.register(tenantRoutes, { storage, accessOf: resources.accessOf });
      const { groupOf } = createGroupMemory({ writes });
      await api.register(groupRoutes, resources);
      await api.register(roleTypeRoutes, resources);
      await api.register(membershipRoutes, resources);
      await api.register(memberRoutes, resources);
      // The CSV import takes text/csv with its own limit: a plugin of its own, so no other route does.
      await api.register(peopleImportRoutes, { accessOf: resources.accessOf, refreshStatistics: (slug, tables) => storage.refreshStatistics(slug, tables), bodyLimit: config.importBodyLimit, maxRows: config.importMaxRows });
      // GET /user/export gathers the person's data from every module.
      await api.register(userExportRoutes, { accessOf: resources.accessOf });
      await api.register(userAccessRoutes, { accessOf: resources.accessOf, storage });
      await api.register(peopleRoutes, { ...resources, groupOf: (request, id) => groupOf(request.tenant.slug, request.tenant.db, id), peopleJson, mail, letterheads });
      // Events: camps and meetings, registration, waiting lists.
      // Registrations and changes of state are told by mail, from the tenant's name in its language.
      // An event as an .ics file (Accept: text/calendar) is the calendars module's: handed in, as that module reads events.
      const calendarFiles = createCalendarFiles({ letterheads, publicUrl: mail.config.publicUrl });
      await api.register(eventRoutes, { ...resources, mail, letterheads, eventFile: calendarFiles.event });
      await api.register(participationRoutes, { ...resources, mail, letterheads });
      await api.register(agendaRoutes, resources);
      // Sync: the change feed, history and webhooks.
      await api.register(changeRoutes, resources);
      await api.register(historyRoutes, resources);
      await api.register(webhookRoutes, { ...resources, registry: storage.registry, allowPrivate: config.webhooksAllowPrivate });
      // Mail: accounts (reset, invitations), a person's mail status, and leaders' messages.
      await api.register(accountRoutes, { ...resources, mail, tokenPrefix, sessions, letterheads });
      await api.register(mailRoutes, { ...resources, mail });
      await api.register(messageRoutes, { ...resources, mail, letterheads });
      // Calendars: a secret feed address per person, and events as .ics files.
      await api.register(calendarRoutes, { ...resources, letterheads, publicUrl: mail.config.publicUrl, ...(deps.now ? { now: deps.now } : {}) });
    },
    { prefix: '/api' },
  );
  return app;
}

/**
 * List cursors are signed with a secret every instance shares: made once, kept in the registry.
 * A cursor from one instance is good on every other, and a forged one is refused by all.
 */
async function sharedCursorSecret(storage: Storage): Promise<Buffer> {
  const candidate = JSON.stringify(randomBytes(32).toString('hex'));
  const stored = await readOrCreateSetting(storage.registry, 'cursor_secret', candidate, toDbTimestamp(new Date()));
  return Buffer.from(JSON.parse(stored) as string, 'hex');
}

/** The last check before a route runs: a known tenant, then the token the route requires. */
function admitRequest(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  try {
    requireKnownTenant(request);
    // After the tenant, the rate limit and routing (an unknown route stays 404), before 401/403 and the body.
    if (!request.is404) enforceCsrf(request);
    enforceRequirement(request);
    done();
  } catch (err) {
    done(err as Error);
  }
}

/**
 * Rate-limit counters in Redis when REDIS_URL is set (closed with the app), else in this process.
 * The Redis client is loaded only when it is used (it is ~20 MB of a server's memory).
 */
async function createConfiguredRateLimits(app: FastifyInstance, config: Config, localStore: 'memory' | 'cluster'): Promise<RateLimits> {
  let warned = false;
  const limits = {
    authenticatedLimit: config.rateLimitAuthenticated,
    unauthenticatedLimit: config.rateLimitUnauthenticated,
    calendarLimit: config.rateLimitCalendar,
    keyPrefix: config.redisKeyPrefix,
    localStore,
    onFallback: (err: unknown) => {
      if (warned) return;
      warned = true;
      app.log.warn({ err }, 'rate-limit counters failed; counting in this process instead');
    },
  };
  if (!config.redisUrl) return closedWithApp(app, createRateLimits(limits));
  const { createRedisClient, waitUntilReady } = await import('./http/rate-limit/redis.js');
  const redis = createRedisClient(config.redisUrl, app.log);
  // Start with shared counters when Redis is there; when it is not, start anyway and fall back.
  app.addHook('onReady', async () => {
    await waitUntilReady(redis, REDIS_CONNECT_WAIT_MS);
  });
  app.addHook('onClose', async () => {
    redis.disconnect();
  });
  return closedWithApp(app, createRateLimits({ ...limits, redis }));
}

function closedWithApp(app: FastifyInstance, limits: RateLimits): RateLimits {
  app.addHook('onClose', async () => limits.close());
  return limits;
}

/**
 * While the app closes, every answer says "Connection: close", so a keep-alive connection ends
 * right after its last answer instead of holding the shutdown until its idle timeout.
 */
function closeConnectionsWhenStopping(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
