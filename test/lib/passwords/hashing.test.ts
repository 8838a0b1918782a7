import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createHashingThreads, HashJobError, type HashingThreads } from '../../../src/lib/passwords/hashing.js';
import { waitFor } from '../../helpers/wait.js';

const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** This process's threads and their nice values (Linux). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      // Field 19 of stat is the nice value; the name before it may contain spaces, so split after ')'.
      return [Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])];
    } catch {
      return []; // the thread ended while we looked
    }
  });
}

describe.runIf(process.platform === 'linux')('password hashing threads', () => {
  let pool: HashingThreads;
  afterEach(() => pool.stop());

  it('hashes and checks argon2id and bcrypt on threads at the nice value given', async () => {
    pool = createHashingThreads({ threads: 1, nice: 7 });
    expect(threadNiceValues()).not.toContain(7);
    const hash = (await pool.run({ op: 'argon2-hash', plain: 'secret words', options: OPTIONS })) as string;
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(threadNiceValues()).toContain(7);
    expect(await pool.run({ op: 'argon2-verify', hash, plain: 'secret words' })).toBe(true);
    expect(await pool.run({ op: 'argon2-verify', hash, plain: 'other words' })).toBe(false);
    // Laravel's bcrypt of "password" (cost 4), as an import brings it.
    const bcrypt = '$2y$04$Ucv2hu2c8W2.cT1kLM3yG.NGL2bprxYTKUDycubWdJtsdl8tMMtkq';
    expect(await pool.run({ op: 'bcrypt-verify', hash: bcrypt, plain: 'password' })).toBe(true);
    expect(await pool.run({ op: 'bcrypt-verify', hash: bcrypt, plain: 'passwort' })).toBe(false);
  });

  it('answers every job when more arrive than there are threads, each with its own result', async () => {
    pool = createHashingThreads({ threads: 2, nice: 7 });
    const plains = ['one', 'two', 'three', 'four', 'five'];
    const hashes = (await Promise.all(plains.map((plain) => pool.run({ op: 'argon2-hash', plain, options: OPTIONS })))) as string[];
    const checks = await Promise.all(hashes.map((hash, i) => pool.run({ op: 'argon2-verify', hash, plain: plains[i]! })));
    expect(checks).toEqual(plains.map(() => true));
    expect(new Set(hashes).size).toBe(plains.length);
  });

  it('fails the job, not the thread, on a malformed hash', async () => {
    pool = createHashingThreads({ threads: 1, nice: 7 });
    await expect(pool.run({ op: 'argon2-verify', hash: '$argon2id$broken', plain: 'x' })).rejects.toBeInstanceOf(HashJobError);
    expect(await pool.run({ op: 'argon2-hash', plain: 'still works', options: OPTIONS })).toMatch(/^\$argon2id\$/);
  });

  it('stops idle threads, and starts one again for the next job', async () => {
    pool = createHashingThreads({ threads: 1, nice: 9, idleMs: 100 });
    await pool.run({ op: 'argon2-hash', plain: 'a', options: OPTIONS });
    expect(threadNiceValues()).toContain(9);
    await waitFor(() => !threadNiceValues().includes(9), 5000);
    expect(await pool.run({ op: 'argon2-hash', plain: 'b', options: OPTIONS })).toMatch(/^\$argon2id\$/);
    expect(threadNiceValues()).toContain(9);
  });

  it('fails the jobs under way and waiting when stopped', async () => {
    pool = createHashingThreads({ threads: 1, nice: 7 });
    const running = pool.run({ op: 'argon2-hash', plain: 'a', options: { ...OPTIONS, timeCost: 50 } });
    const waiting = pool.run({ op: 'argon2-hash', plain: 'b', options: OPTIONS });
    const outcomes = Promise.allSettled([running, waiting]);
    await pool.stop();
    const [ran, waited] = await outcomes;
    expect(ran.status).toBe('rejected');
    // A thread that stopped is not a failed job: callers must not read it as a wrong password.
    expect((ran as PromiseRejectedResult).reason).not.toBeInstanceOf(HashJobError);
    expect(waited).toMatchObject({ status: 'rejected', reason: new Error('hashing threads stopped') });
  });
});
