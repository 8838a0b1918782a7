import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.js';

describe('benchmark script', () => {
  it('runs every scenario for a second against the built server and prints the table', () => {
    const result = spawnSync(process.execPath, ['bench/run.mjs', '--smoke', '--no-build', '--connections', '10'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const scenario of ['baseline', 'GET /api/user', 'invalid token (401)', 'POST /api/login', 'mix', 'tenants', 'while logins run']) {
      expect(result.stdout).toContain(scenario);
    }
    expect(result.stdout).toMatch(/\| req\/s \|/);
    expect(result.stdout).toMatch(/written to .*bench\/results\/smoke-.*\.json/);
  }, 150_000);
});
