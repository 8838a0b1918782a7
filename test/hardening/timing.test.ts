import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD } from '../helpers/app.js';
import { deactivateUser } from '../../src/modules/auth/accounts.js';

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
      const attempt = async (payload: object) => {
        const started = performance.now();
        const response = await t.app.inject({ method: 'POST', url: '/api/login', headers: { ...JSON_HEADERS, host: hostOf('demo') }, payload });
        const elapsed = performance.now() - started;
        expect(response.statusCode).toBe(401);
        return elapsed;
      };
      /** One round: the median time of each case, its attempts interleaved so drift in load affects all alike. */
      const round = async () => {
        const samples: Record<keyof typeof cases, number[]> = { unknownUser: [], wrongPassword: [], deactivatedUser: [] };
        for (let i = 0; i < 25; i++) {
          for (const [name, payload] of Object.entries(cases)) samples[name as keyof typeof cases].push(await attempt(payload));
        }
        return Object.values(samples).map(median);
      };
      for (const payload of Object.values(cases)) await attempt(payload); // warm-up
      // A leak shows in every round; a burst of load from other tests on a busy CI machine in one
      // (it once made one case's median 34 % slower). So up to three rounds, and the best counts.
      const rounds: number[][] = [];
      const ratioOf = (medians: number[]) => Math.max(...medians) / Math.min(...medians);
      while (rounds.length < 3 && (rounds.length === 0 || ratioOf(rounds.at(-1)!) >= 1.3)) rounds.push(await round());
      const best = rounds.reduce((a, b) => (ratioOf(b) < ratioOf(a) ? b : a));
      // Each costs one argon2id verification (~tens of ms); a skipped check would be ~100x faster.
      expect(Math.min(...best)).toBeGreaterThan(5);
      const described = rounds.map((medians) => medians.map((m) => m.toFixed(1)).join(' / ')).join('; ');
      expect(ratioOf(best), `medians per round ${described} ms`).toBeLessThan(1.3);
    } finally {
      await t.close();
    }
  }, 120_000);
});
