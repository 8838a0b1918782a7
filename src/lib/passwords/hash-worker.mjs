// The code of the password-hashing threads (hashing.ts), one job at a time with the synchronous
// hash functions: the thread has nothing else to do. Plain JavaScript, so that the same file runs
// from the sources (tests) and from the build, where tsc copies it (allowJs).
import { setPriority } from 'node:os';
import argon2 from '@node-rs/argon2';
import bcrypt from '@node-rs/bcrypt';
import { workerData } from 'piscina';

if (process.platform === 'linux') {
  // Linux keeps a nice value per thread: this lowers this thread only.
  try {
    setPriority(0, workerData.nice);
  } catch {
    // Not allowed here: the thread keeps the normal priority.
  }
}

/**
 * A job's own failure (a malformed stored hash) comes back as `{ error }`, so the caller can tell
 * it from a thread that failed.
 */
export default function runHashJob(job) {
  try {
    const value =
      job.op === 'argon2-hash'
        ? argon2.hashSync(job.plain, job.options)
        : job.op === 'argon2-verify'
          ? argon2.verifySync(job.hash, job.plain)
          : bcrypt.verifySync(job.plain, job.hash);
    return { value };
  } catch (err) {
    return { error: String((err && err.message) || err) };
  }
}
