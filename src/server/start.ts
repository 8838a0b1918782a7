import cluster from 'node:cluster';
import { setFlagsFromString } from 'node:v8';
import { runPrimary } from './cluster.js';
import type { Config } from '../config.js';
import { serve } from './serve.js';

/**
 * V8 moves an allocation site's objects straight to the old generation once most of them were
 * seen to survive a young-generation collection, and does not take that back. On PostgreSQL the
 * first requests wait for the database together, their objects survive, and in about one start
 * in three request-path sites (HTTP headers, request objects) were decided that way: from then
 * on every request's garbage went to the old generation, with a full collection every second,
 * RSS swinging 130-185 MB instead of ~110 MB, and 20-30% less throughput. Set here rather than as
 * a command-line flag so that every way of starting the service gets it (NODE_OPTIONS may not
 * carry it).
 */
function keepRequestGarbageYoung(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}

/** Runs the service as configured: in this process, or as the primary or a worker of WORKERS > 1. */
export async function start(config: Config): Promise<void> {
  keepRequestGarbageYoung();
  if (cluster.isWorker) await serve(config, 'worker');
  else if (config.workers > 1) await runPrimary(config);
  else await serve(config, 'single');
}
