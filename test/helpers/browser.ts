import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; CI installs it (.ci/run), so there the browser tests always run. */
export const CHROMIUM = '/usr/bin/chromium';
export const browserAvailable = existsSync(CHROMIUM) || process.env.CI === 'true';

/** Headless, and quiet on a machine without internet (no background connections to refuse). */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });

/**
 * The browser tests' repeats (the same steps at another width or in another language) are divided
 * between CI's two passes: the SQLite pass runs the cases at even places, the PostgreSQL + Redis
 * pass those at odd places. Every flow still runs on both databases, and every CI run still covers
 * each case once, in about half of the browser tests' time. `BROWSER_CASES=all` runs every case.
 */
export function ofThisPass<T>(cases: readonly T[]): T[] {
  if (process.env.BROWSER_CASES === 'all' || cases.length < 2) return [...cases];
  const place = process.env.DATABASE_URL ? 1 : 0;
  return cases.filter((_, index) => index % 2 === place);
}

/**
 * Each language at each of two widths, ordered so that each pass's half (`ofThisPass`) has every
 * language once and both widths: the first language at the first width, the next at the other.
 */
export function languagesAtWidths<L>(languages: readonly L[], widths: readonly [number, number] = [360, 1280]): { language: L; width: number }[] {
  return languages.flatMap((language, index) => (index % 2 === 0 ? widths : [widths[1], widths[0]]).map((width) => ({ language, width })));
}
