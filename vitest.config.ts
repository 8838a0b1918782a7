import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // On PostgreSQL, the database every test app copies (test/helpers/pg-template.ts).
    globalSetup: ['./test/helpers/pg-template.ts'],
    pool: 'forks',
    // A worker runs its files one after another in one module cache, instead of loading the app
    // anew for each of the ~100 files: that load (TypeBox and Kysely alone are ~950 modules) was
    // 130 s of a pass's CPU. Files share no state through it: every test builds its own app,
    // storage and ports; the one file that mocks a module loads the app again after its mock.
    isolate: false,
    // Two files at a time even on two cores (Vitest's default there is one): most of the suite
    // waits on child processes, databases, timers and leases, not on the CPU. Every test has its
    // own data directory, PostgreSQL database, Redis key prefix and ports, so files never meet.
    maxWorkers: Math.max(2, availableParallelism()),
    minWorkers: 1,
    testTimeout: 30_000,
    // The second reporter repeats unhandled errors after the summary, where a CI log's tail shows them.
    // (Naming reporters turns off Vitest's automatic GitHub Actions reporter; CI here is .ci/run.)
    reporters: ['default', './test/helpers/unhandled-errors-reporter.ts'],
    hookTimeout: 30_000,
  },
});
