/**
 * How long to wait before retry number `failures` (1 after the first failure), or null when the
 * schedule is used up. Jitter of up to a fifth either way keeps many webhooks that failed together
 * (a receiver's outage) from all retrying in the same second.
 */
export function retryDelayMs(schedule: readonly number[], failures: number, random: () => number = Math.random): number | null {
  const base = schedule[failures - 1];
  if (base === undefined) return null;
  const jitter = 1 + (random() * 2 - 1) * 0.2;
  return Math.max(1000, Math.round(base * 1000 * jitter));
}
