import { ConfigError, loadConfig } from './config.js';
import { start } from './server/start.js';

try {
  await start(loadConfig());
} catch (err) {
  // A bad setting is a one-line message, not a stack trace.
  process.stderr.write(`${err instanceof ConfigError ? err.message : `groupadmin: ${String((err as Error).stack ?? err)}`}\n`);
  process.exit(1);
}
