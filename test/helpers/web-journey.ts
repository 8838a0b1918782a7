import { join } from 'node:path';
import type { Browser, Locator, Page, Request } from 'playwright-core';
import { expect, onTestFailed } from 'vitest';
import { de } from '../../web/src/i18n/de.js';
import { en, type Words } from '../../web/src/i18n/en.js';
import { fr } from '../../web/src/i18n/fr.js';
import type { Language } from '../../web/src/i18n/index.js';
import { ARTIFACTS, seriousViolations, type WebServer } from './web-server.js';

/** The browser's locale for each of the app's languages, and the words the app then shows. */
export const LANGUAGES = {
  de: { locale: 'de-CH', words: de },
  fr: { locale: 'fr-CH', words: fr },
  en: { locale: 'en-GB', words: en },
} as const satisfies Record<Language, { locale: string; words: Words }>;

/** The English texts of the app that a German or French page must not show (texts of a few letters, such as "OK", left out). */
export function englishTexts(other: Words): string[] {
  return Object.entries(en).flatMap(([key, value]) => (typeof value === 'string' && value.length >= 4 && (other as Record<string, unknown>)[key] !== value ? [value] : []));
}

/** Who signs in where: the account, the language and width of the browser, its own time zone. */
export interface JourneyOptions {
  web: WebServer;
  browser: Browser;
  username: string;
  password: string;
  language: Language;
  width: number;
  /** The browser's time zone (IANA), which need not be the tenant's. */
  timeZone: string;
  /** The screenshots' file names begin with it. */
  name: string;
}

/** A signed-in browser page: its API requests, and whatever went wrong on it. */
export interface Journey {
  page: Page;
  words: Words;
  language: Language;
  width: number;
  name: string;
  /** Every API request of the page but `GET /csrf-cookie`, in the order made. */
  requests: Request[];
  /** English text, sideways scrolling, axe-core violations, script errors, page views over budget. */
  found: string[];
  /** Waits until no API request is on its way. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** A new browser page with the bookkeeping of a journey: its API requests, its script errors, and when it is quiet. */
async function newJourneyPage(options: Pick<JourneyOptions, 'browser' | 'language' | 'width' | 'timeZone'>) {
  const { locale } = LANGUAGES[options.language];
  const context = await options.browser.newContext({ viewport: { width: options.width, height: 800 }, locale, timezoneId: options.timeZone });
  const page = await context.newPage();
  const requests: Request[] = [];
  const everyRequest: Request[] = [];
  const found: string[] = [];
  let open = 0;
  page.on('pageerror', (error) => found.push(`script error: ${error.message}`));
  page.on('request', (request) => {
    everyRequest.push(request);
    const { pathname } = new URL(request.url());
    if (!pathname.startsWith('/api/')) return;
    open += 1;
    if (pathname !== '/api/csrf-cookie') requests.push(request);
  });
  const done = (request: Request) => {
    if (new URL(request.url()).pathname.startsWith('/api/')) open -= 1;
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  const settled = async () => {
    // Quiet for a moment: a page that reads in two steps has started its second request by then.
    for (let quiet = 0; quiet < 3; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      quiet = open === 0 ? quiet + 1 : 0;
    }
  };
  return { page, requests, everyRequest, found, settled, close: () => context.close() };
}

/** Signs in through the login page and waits for the first screen (the home page) with its requests answered. */
export async function signIn(options: JourneyOptions): Promise<Journey> {
  const { words } = LANGUAGES[options.language];
  const { everyRequest: _everyRequest, ...tracked } = await newJourneyPage(options);
  const { page } = tracked;
  await page.goto(`${options.web.base}/`);
  await page.getByLabel(words.username).fill(options.username);
  await page.getByLabel(words.password).fill(options.password);
  await page.getByRole('button', { name: words.login }).click();
  await page.getByRole('heading', { name: words.nextForUs }).waitFor();
  await tracked.settled();
  return { ...tracked, words, language: options.language, width: options.width, name: options.name };
}

/**
 * A browser that is not signed in, opened at `url` (e.g. a mail's link), with the same bookkeeping
 * as a signed-in journey; `everyRequest` holds every request of the page, not only the API's.
 */
export async function openSignedOut(url: string, options: Omit<JourneyOptions, 'web' | 'username' | 'password'>): Promise<Journey & { everyRequest: Request[] }> {
  const tracked = await newJourneyPage(options);
  await tracked.page.goto(url);
  return { ...tracked, words: LANGUAGES[options.language].words, language: options.language, width: options.width, name: options.name };
}

/** Requests as "METHOD /path" (without the query), sorted. */
export const named = (requests: Request[]): string[] => requests.map((request) => `${request.method()} ${new URL(request.url()).pathname}`).sort();

/** The API requests that `act` leads to, once they are answered ("METHOD /path", sorted). */
export async function requestsDuring(journey: Journey, act: () => Promise<unknown>): Promise<string[]> {
  const before = journey.requests.length;
  await act();
  await journey.settled();
  return named(journey.requests.slice(before));
}

/**
 * A page view: what `go` starts, until the page's heading shows and its requests are answered; its
 * API requests. A view that reads more than 2 is noted in `found`: the budget counts what a page
 * reads, not the write that led to it.
 */
export async function view(journey: Journey, go: () => Promise<unknown>, heading: string): Promise<string[]> {
  const before = journey.requests.length;
  const hash = await journey.page.evaluate(() => location.hash);
  await go();
  // A new page (some pages share their heading, e.g. an event and its print view).
  await expect.poll(() => journey.page.evaluate(() => location.hash)).not.toBe(hash);
  await journey.page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  await journey.settled();
  const made = named(journey.requests.slice(before));
  const reads = made.filter((request) => request.startsWith('GET '));
  if (reads.length > 2) journey.found.push(`over budget, ${heading}: ${made.join(', ')}`);
  return made;
}

/** A page view by its address (`/groups/5`). */
export const visit = (journey: Journey, hash: string, heading: string): Promise<string[]> =>
  view(journey, () => journey.page.evaluate((to) => (location.hash = to), `#${hash}`), heading);

/**
 * Notes in `found` what is wrong with the page as shown: English text in German or French,
 * sideways scrolling, serious or critical axe-core violations. Leaves a screenshot.
 */
export async function check(journey: Journey, where: string): Promise<void> {
  const { page, language, words, width } = journey;
  const problems: string[] = [];
  if (language !== 'en') {
    const text = await page.locator('body').innerText();
    // As a whole phrase: the French "Assistant·e" and the German "Administrator:in" are not English.
    const shown = (phrase: string) => new RegExp(`(?<![\\p{L}])${phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}·:])`, 'u').test(text);
    for (const phrase of englishTexts(words)) if (shown(phrase)) problems.push(`English: "${phrase}"`);
  }
  if (!(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth))) problems.push('scrolls sideways');
  problems.push(...(await seriousViolations(page)).map((violation) => `axe: ${violation}`));
  journey.found.push(...problems.map((problem) => `${language}, ${width} px, ${where}: ${problem}`));
  await page.screenshot({ path: join(ARTIFACTS, `${journey.name}-${language}-${width}-${where.replace(/\W+/g, '-')}.png`), fullPage: true });
}

/** The text the field's aria-describedby points to (in `within`, a page or a part of it): its message and hint, beside it. */
export const messageBeside = (within: Page | Locator, label: string): Promise<string | null> =>
  within.getByLabel(label, { exact: true }).evaluate((input) => {
    const ids = input.getAttribute('aria-describedby');
    return ids ? ids.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ') : null;
  });

/** One answer of a yes/no question (a group of radios named by its question). */
export const answer = (within: Page | Locator, question: string, choice: string): Locator => within.getByRole('group', { name: question, exact: true }).getByLabel(choice, { exact: true });

/** Answers the page's next question (`confirm`) with yes or no; resolves to what it asked. */
export const nextQuestion = (page: Page, accept: boolean): Promise<string> =>
  new Promise((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    }),
  );

/** On a failure, the server's log of requests not answered with 2xx or 3xx, and its warnings: a page that waits forever shows no reason. */
export const serverLogOnFailure = (web: WebServer): void =>
  onTestFailed(async () => {
    await new Promise((resolve) => setTimeout(resolve, 300)); // the last lines still in the pipe
    const troubles = web.server.output().split('\n').filter((line) => /"status":[45]\d\d|"level":[456]0/.test(line));
    console.error(`server log, requests not answered with 2xx or 3xx, and warnings:\n${troubles.join('\n') || '(none)'}`);
  });
