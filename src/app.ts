import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { Storage } from './db/storage.js';
import { createTenantDirectory, type TenantDirectory } from './domain/tenant-directory.js';
import authPlugin from './plugins/auth.js';
import errorHandler from './plugins/error-handler.js';
import jsonBody from './plugins/json-body.js';
import tenantPlugin from './plugins/tenant.js';
import loginRoutes from './routes/auth/login.js';
import healthRoutes from './routes/system/health.js';
import getUserRoute from './routes/user/get-user.js';

export interface AppDeps {
  /** Storage the caller owns (opened and migrated); the app never closes it. */
  storage: Storage;
  directory?: TenantDirectory;
  /** Where log lines go; pino's default is standard output. */
  logger?: FastifyServerOptions['loggerInstance'];
  now?: () => Date;
}

/** Builds the whole service without listening, so the server, the CLI and tests share it. */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { storage } = deps;
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: { level: config.logLevel } }),
    // Fastify accepts a hop count at run time; its types only miss the number form.
    trustProxy: config.trustProxy as boolean | string[],
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true },
  }) as unknown as FastifyInstance;

  await app.register(errorHandler);
  await app.register(jsonBody);
  await app.register(healthRoutes, { storage });

  const directory = deps.directory ?? createTenantDirectory(storage);
  await app.register(
    async (api) => {
      await api.register(tenantPlugin, {
        storage,
        directory,
        hostRules: { serviceDomain: config.serviceDomain, defaultTenant: config.defaultTenant },
      });
      await api.register(authPlugin, deps.now ? { now: deps.now } : {});
      api.setNotFoundHandler(app.routeNotFound);
      await api.register(loginRoutes, { tokenPrefix: config.tokenPrefix });
      await api.register(getUserRoute);
    },
    { prefix: '/api' },
  );
  return app;
}
