import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { curlLoginCommand, openStorage, seedFirstStart } from './bootstrap.js';
import type { Config } from './config.js';

export interface RunningServer {
  app: FastifyInstance;
  stop(): Promise<void>;
}

/** Migrates, seeds a first start, listens, and stops cleanly on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<RunningServer> {
  const storage = await openStorage(config);
  const account = await seedFirstStart(storage, config);
  const app = await buildApp(config, { storage });
  await app.listen({ port: config.port, host: config.host });
  if (account) {
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    // Shown once: the password exists nowhere else in readable form.
    process.stdout.write(
      [
        '',
        `First start: created tenant "${account.tenant}" and user "${account.username}".`,
        'Log in with:',
        `  ${curlLoginCommand({ ...config, port }, account)}`,
        '',
        '',
      ].join('\n'),
    );
  }
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close();
      await storage.close();
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    app.log.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return { app, stop };
}
