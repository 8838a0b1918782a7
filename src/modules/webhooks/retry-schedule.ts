/**
 * The pauses, in seconds, before each retry of a failed message (integrations.md, section 4): about
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. After the last one fails the webhook is disabled.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = Object.freeze([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);

/** Reads WEBHOOK_RETRY_SCHEDULE ("5,300,1800"): positive whole seconds, at most 50 of them, each at most a week. */
export function parseRetrySchedule(raw: string): number[] | null {
  if (raw.trim() === '') return [...DEFAULT_RETRY_SCHEDULE];
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 50 || !parts.every((part) => /^\d{1,6}$/.test(part))) return null;
  const seconds = parts.map(Number);
  return seconds.every((value) => value >= 1 && value <= 604_800) ? seconds : null;
}

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
