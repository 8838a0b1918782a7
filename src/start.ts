import cluster from 'node:cluster';
import { runPrimary } from './cluster.js';
import type { Config } from './config.js';
import { serve } from './serve.js';

/** Runs the service as configured: in this process, or as the primary or a worker of WORKERS > 1. */
export async function start(config: Config): Promise<void> {
  if (cluster.isWorker) await serve(config, 'worker');
  else if (config.workers > 1) await runPrimary(config);
  else await serve(config, 'single');
}
