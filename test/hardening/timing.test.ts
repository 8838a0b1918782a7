import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { deactivateUser } from '../../src/modules/users/rules.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD } from '../helpers/app.js';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

describe('login timing', () => {
  it('takes the same time for an unknown user, a wrong password and a deactivated user', async () => {
    const t = await buildTestApp();
    try {
      await t.addUser('demo', { username: 'alice' });
      const bob = await t.addUser('demo', { username: 'bob' });
      await deactivateUser(t.storage.tenantDb('demo'), bob.id);
      const cases = {
        unknownUser: { username: 'nobody-here', password: PASSWORD },
        wrongPassword: { username: 'alice', password: 'not the password' },
        deactivatedUser: { username: 'bob', password: PASSWORD },
      };
      const samples: Record<keyof typeof cases, number[]> = { unknownUser: [], wrongPassword: [], deactivatedUser: [] };
      const attempt = async (payload: object) => {
        const started = performance.now();
        const response = await t.app.inject({ method: 'POST', url: '/api/login', headers: { ...JSON_HEADERS, host: hostOf('demo') }, payload });
        const elapsed = performance.now() - started;
        expect(response.statusCode).toBe(401);
        return elapsed;
      };
      for (const payload of Object.values(cases)) await attempt(payload); // warm-up
      // Interleaved, so drift in machine load affects every case alike.
      for (let i = 0; i < 25; i++) {
        for (const [name, payload] of Object.entries(cases)) samples[name as keyof typeof cases].push(await attempt(payload));
      }
      const medians = Object.values(samples).map(median);
      const ratio = Math.max(...medians) / Math.min(...medians);
      // Each costs one argon2id verification (~tens of ms); a skipped check would be ~100x faster.
      expect(Math.min(...medians)).toBeGreaterThan(5);
      expect(ratio, `medians ${medians.map((m) => m.toFixed(1)).join(' / ')} ms`).toBeLessThan(1.3);
    } finally {
      await t.close();
    }
  }, 60_000);
});
