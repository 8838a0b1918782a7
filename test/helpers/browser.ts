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
