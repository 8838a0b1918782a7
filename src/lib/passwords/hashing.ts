import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';

/** One password hash to make or check. */
export type HashJob =
  | { op: 'argon2-hash'; plain: string; options: Record<string, number> }
  | { op: 'argon2-verify'; hash: string; plain: string }
  | { op: 'bcrypt-verify'; hash: string; plain: string };

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

export interface HashingThreads {
  /** Rejects with HashJobError when the job fails, with another error when its thread does. */
  run(job: HashJob): Promise<string | boolean>;
  /** Stops every thread now; jobs under way or waiting fail. The next job starts threads anew. */
  stop(): Promise<void>;
}

// Beside this module in src/ and dist/; scripts/bundle.mjs copies it beside the bundle.
const WORKER = new URL('./hash-worker.mjs', import.meta.url).href;

/**
 * Password hashing on a piscina pool of threads of its own, at the lowest priority. A hash takes
 * tens of milliseconds of CPU; on libuv's pool at normal priority it took CPU from the event
 * loop, and GET /api/user's p99 tripled while logins ran (3 -> 9 ms on 2 cores, 15,400 req/s). At
 * nice 19 the scheduler gives these threads what the event loop leaves: 4 ms and 27,700 req/s
 * (nice 10: 6 ms, 23,000 req/s). Under full load logins therefore wait, instead of every request.
 * Threads start with the first hash and stop when idle, so a service nobody logs in to pays no
 * memory for them; an idle thread does not keep a process (a CLI command) alive.
 */
export function createHashingThreads({
  threads = Math.max(1, availableParallelism() - 1),
  idleMs = 30_000,
  nice = 19,
}: HashingThreadsOptions = {}): HashingThreads {
  let pool: Piscina | undefined;
  // What stop() fails at once: piscina would fail them with words of its own, or not at all.
  const unsettled = new Set<(err: Error) => void>();

  const poolNow = () =>
    (pool ??= new Piscina({
      filename: WORKER,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: idleMs,
      // Each thread lowers its own priority (hash-worker.mjs): no optional native module needed.
      workerData: { nice },
      // Plain messages: a thread waiting on Atomics would hold the process.
      atomics: 'disabled',
      // First come, first hashed: by default a job that finds no free thread goes to the back of
      // the queue again, and under a login storm some waited past clients' time-outs.
      stricterFIFO: true,
    }));

  return {
    run(job) {
      return new Promise((resolve, reject) => {
        unsettled.add(reject);
        poolNow()
          .run(job)
          .then(
            (answer: { value?: string | boolean; error?: string }) => {
              if (answer.error !== undefined) reject(new HashJobError(answer.error));
              else resolve(answer.value as string | boolean);
            },
            reject,
          )
          .finally(() => unsettled.delete(reject));
      });
    },
    async stop() {
      const stopping = pool;
      pool = undefined;
      for (const reject of [...unsettled]) reject(new Error('hashing threads stopped'));
      unsettled.clear();
      await stopping?.destroy();
    },
  };
}
