import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** One password hash to make or check. */
export type HashJob =
  | { op: 'argon2-hash'; plain: string; options: Record<string, number> }
  | { op: 'argon2-verify'; hash: string; plain: string }
  | { op: 'bcrypt-verify'; hash: string; plain: string };

/**
 * The threads' code: one job at a time, with the synchronous hash functions (the thread has
 * nothing else to do). Kept as source text so that it runs the same from the compiled service and
 * from the TypeScript sources under test; the modules come by absolute path.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { setPriority } = require('node:os');
const argon2 = require(workerData.argon2);
const bcrypt = require(workerData.bcrypt);
if (process.platform === 'linux') {
  // Linux keeps a nice value per thread: this lowers this thread only.
  try { setPriority(0, workerData.nice); } catch {}
}
parentPort.on('message', (job) => {
  try {
    const value =
      job.op === 'argon2-hash' ? argon2.hashSync(job.plain, job.options)
      : job.op === 'argon2-verify' ? argon2.verifySync(job.hash, job.plain)
      : bcrypt.verifySync(job.plain, job.hash);
    parentPort.postMessage({ value });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});
`;

/** The job itself failed (a malformed stored hash, say); the threads are fine. */
export class HashJobError extends Error {}

export interface HashingThreadsOptions {
  /** At most this many hashes run at once, each on a thread of its own. */
  threads?: number;
  /** Threads idle this long are stopped (each holds ~13 MB). */
  idleMs?: number;
  /** The threads' nice value on Linux (0 normal, 19 lowest). */
  nice?: number;
}

interface Pending {
  job: HashJob;
  resolve: (value: string | boolean) => void;
  reject: (err: Error) => void;
}

export interface HashingThreads {
  /** Rejects with HashJobError when the job fails, with another error when its thread does. */
  run(job: HashJob): Promise<string | boolean>;
  /** Stops every thread now; jobs under way or waiting fail. The next job starts threads anew. */
  stop(): Promise<void>;
}

/**
 * Password hashing on threads of its own, at the lowest priority. A hash takes tens of
 * milliseconds of CPU; on libuv's pool at normal priority it took CPU from the event loop, and
 * GET /api/user's p99 tripled while logins ran (3 -> 9 ms on 2 cores, 15,400 req/s). At nice 19
 * the scheduler gives these threads what the event loop leaves: 4 ms and 27,700 req/s (nice 10:
 * 6 ms, 23,000 req/s). Under full load logins therefore wait, instead of every request.
 * Threads start with the first hash and stop when idle, so a service nobody logs in to pays no
 * memory for them.
 */
export function createHashingThreads({
  threads = Math.max(1, availableParallelism() - 1),
  idleMs = 30_000,
  nice = 19,
}: HashingThreadsOptions = {}): HashingThreads {
  const require = createRequire(import.meta.url);
  const workerData = { argon2: require.resolve('@node-rs/argon2'), bcrypt: require.resolve('@node-rs/bcrypt'), nice };
  const idle: Worker[] = [];
  const working = new Map<Worker, Pending>();
  const queue: Pending[] = [];
  let idleTimer: NodeJS.Timeout | undefined;

  const start = (worker: Worker, pending: Pending) => {
    working.set(worker, pending);
    // A thread with a job keeps the process alive (a CLI command waits for its hash); an idle one does not.
    worker.ref();
    worker.postMessage(pending.job);
  };

  const finished = (worker: Worker) => {
    working.delete(worker);
    const next = queue.shift();
    if (next) return start(worker, next);
    worker.unref();
    idle.push(worker);
    if (working.size === 0) {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(stopIdle, idleMs).unref();
    }
  };

  const lost = (worker: Worker, err: Error) => {
    const index = idle.indexOf(worker);
    if (index >= 0) idle.splice(index, 1);
    const pending = working.get(worker);
    working.delete(worker);
    pending?.reject(err);
    // Its place is free again: a waiting job gets a new thread.
    const next = queue.shift();
    if (next) dispatch(next);
  };

  const spawn = (): Worker => {
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData });
    worker.on('message', (answer: { value?: string | boolean; error?: string }) => {
      const pending = working.get(worker);
      if (pending) {
        if (answer.error !== undefined) pending.reject(new HashJobError(answer.error));
        else pending.resolve(answer.value as string | boolean);
      }
      finished(worker);
    });
    worker.on('error', (err) => lost(worker, err));
    worker.on('exit', (code) => lost(worker, new Error(`hashing thread stopped (exit code ${code})`)));
    return worker;
  };

  const dispatch = (pending: Pending) => {
    clearTimeout(idleTimer);
    const worker = idle.pop() ?? (working.size < threads ? spawn() : undefined);
    if (worker) start(worker, pending);
    else queue.push(pending);
  };

  const stopIdle = () => {
    for (const worker of idle.splice(0)) void worker.terminate();
  };

  return {
    run: (job) => new Promise((resolve, reject) => dispatch({ job, resolve, reject })),
    async stop() {
      clearTimeout(idleTimer);
      for (const pending of queue.splice(0)) pending.reject(new Error('hashing threads stopped'));
      await Promise.all([...idle.splice(0), ...working.keys()].map((worker) => worker.terminate()));
    },
  };
}
