import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../../src/modules/webhooks/retry-schedule.js';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from '../../../src/config.js';

describe('webhook retry schedule', () => {
  it('defaults to about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(parseRetrySchedule('')).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    expect(parseRetrySchedule(' 1, 2 ,3')).toEqual([1, 2, 3]);
  });

  it('refuses schedules that are not positive whole seconds', () => {
    for (const raw of ['0', '-1', '1.5', 'a', '1,,2', '700000', Array(51).fill('1').join(',')]) {
      expect(parseRetrySchedule(raw), raw).toBeNull();
    }
  });

  it('waits each step within a fifth of its length, and stops after the last', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: DEFAULT_RETRY_SCHEDULE.length }), fc.double({ min: 0, max: 0.999_999, noNaN: true }), (failures, roll) => {
      const base = DEFAULT_RETRY_SCHEDULE[failures - 1]! * 1000;
      const delay = retryDelayMs(DEFAULT_RETRY_SCHEDULE, failures, () => roll)!;
      expect(delay).toBeGreaterThanOrEqual(base * 0.8 - 1);
      expect(delay).toBeLessThanOrEqual(base * 1.2 + 1);
    }));
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, DEFAULT_RETRY_SCHEDULE.length + 1)).toBeNull();
    expect(retryDelayMs([1], 1, () => 0)).toBe(1000);
  });
});
