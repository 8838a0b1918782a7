import { describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/processes.js';
import { testServices } from '../helpers/services.js';

describe('soak script', () => {
  it('runs a 5-second mixed load against the built server with no 5xx and every token where it should be', async () => {
    const services = await testServices();
    try {
      const result = await runProcess(process.execPath, ['scripts/soak.mjs', '--seconds', '5', '--concurrency', '8'], {
        env: { PATH: process.env.PATH ?? '', ...services.env },
        timeoutMs: 60_000,
      });
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      const summary = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'), result.stdout.lastIndexOf('}') + 1));
      expect(summary.serverErrors).toBe(0);
      expect(summary.problems).toEqual([]);
      expect(summary.requests).toBeGreaterThan(100);
      expect(summary.tokensRevoked).toBeGreaterThan(0);
    } finally {
      await services.cleanup();
    }
  }, 90_000);
});
