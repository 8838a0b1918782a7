import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runProcess } from '../helpers/processes.js';

describe('benchmark script', () => {
  it('runs every scenario for a second against the built server and prints the table', async () => {
    const result = await runProcess(process.execPath, ['bench/run.mjs', '--smoke', '--no-build', '--connections', '10'], {
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 120_000,
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const scenario of ['baseline', 'GET /api/user', 'invalid token (401)', 'POST /api/login', 'mix', 'tenants', 'while logins run', 'register-storm: 150 at once, capacity 100', 'summary', 'GET /api/people, region subtree', 'peer: Express 5 + better-sqlite3', 'people of 100,000', 'GET /api/people as CSV, everyone']) {
      expect(result.stdout).toContain(scenario);
    }
    expect(result.stdout).toMatch(/\| req\/s \|/);
    const written = /written to (\S+\.json)/.exec(result.stdout)![1]!;
    expect(written).toMatch(/bench\/results\/smoke-.*\.json$/);
    // The servers ran with the Node flags of `npm start`, so the numbers are those of `npm start`.
    const startScript: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
    const recorded = JSON.parse(readFileSync(written, 'utf8'));
    expect(recorded.options.nodeFlags).toContainEqual(expect.stringMatching(/^--max-semi-space-size=\d+$/));
    expect(startScript).toBe(`node ${recorded.options.nodeFlags.join(' ')} dist/bundle/server.js`);
  }, 150_000);
});
