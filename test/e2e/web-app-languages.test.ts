import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { de } from '../../web/src/i18n/de.js';
import { en } from '../../web/src/i18n/en.js';
import { fr } from '../../web/src/i18n/fr.js';
import { browserAvailable, languagesAtWidths, launchChromium, ofThisPass } from '../helpers/browser.js';
import { ARTIFACTS, seriousViolations, startWebServer, type WebServer } from '../helpers/web-server.js';

/**
 * The English texts of the app that a German or French page must not show: every catalogue text
 * that the other language words differently (texts of a few letters, such as "OK", are left out).
 */
function englishTexts(other: Record<string, unknown>): string[] {
  return Object.entries(en).flatMap(([key, value]) => (typeof value === 'string' && value.length >= 4 && other[key] !== value ? [value] : []));
}

/**
 * Each role's journey through the pages of the family's part, in German, French and English, on a
 * phone (360 px) and a laptop (1280 px): the browser's language chooses, no page shows English text
 * in German or French, none scrolls sideways, axe-core finds no serious or critical violation, and
 * none takes more than its share of the request budget (3 for the first screen, 2 a page view).
 */
describe.runIf(browserAvailable)('the web app in each language, for each role, at 360 and 1280 px', () => {
  let web: WebServer;
  let browser: Browser;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: object) => web.apiOk(method, path, body);

  beforeAll(async () => {
    // Twelve sign-ins and a hundred page views within a minute or two: beyond the default limits.
    web = await startWebServer('languages', { RATE_LIMIT_AUTHENTICATED: '100000', RATE_LIMIT_UNAUTHENTICATED: '1000' });
    const root = (await api('GET', '/groups?limit=1')).data.groups[0].id as number;
    const troop = (await api('POST', '/groups', { parent_id: root, name: 'Falken' })).data.group.id as number;
    ids.troop = troop;
    const person = async (firstname: string, lastname: string, groupId: number, role: string, login?: string) =>
      (
        await api('POST', '/people', {
          firstname,
          lastname,
          membership: { group_id: groupId, role_type: role },
          ...(login ? { username: login, password: `${login} password 1`, email: `${login}@example.org` } : {}),
        })
      ).data.person.id as number;
    ids.leader = await person('Lea', 'Lindt', troop, 'leader', 'lea');
    ids.parent = await person('Pia', 'Pfister', root, 'member', 'pia');
    ids.ward = await person('Tim', 'Pfister', troop, 'member');
    await api('POST', `/people/${ids.ward}/guardians`, { guardian_id: ids.parent });
    const inAMonth = new Date(Date.now() + 30 * 86_400_000);
    inAMonth.setUTCHours(9, 0, 0, 0);
    ids.camp = (
      await api('POST', '/events', {
        group_id: ids.troop,
        name: 'Pfingstlager',
        location: 'Zweisimmen',
        starts_at: inAMonth.toISOString(),
        ends_at: new Date(inAMonth.getTime() + 2 * 86_400_000).toISOString(),
        capacity: 12,
      })
    ).data.event.id;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
  });

  const journeys: Record<string, { username: string; pages: () => string[] }> = {
    parent: {
      username: 'pia',
      pages: () => ['/', '/wards', `/wards/${ids.ward}`, `/events/${ids.camp}`, `/events/${ids.camp}/register/${ids.ward}`, '/profile', '/sessions', '/search/Pfister'],
    },
    leader: {
      username: 'lea',
      pages: () => ['/', '/groups', `/groups/${ids.troop}`, `/events/${ids.camp}`, `/people/${ids.ward}`, '/profile', '/sessions', '/search/Tim'],
    },
  };
  const languages = { de: { locale: 'de-CH', words: de }, fr: { locale: 'fr-CH', words: fr }, en: { locale: 'en-GB', words: en } } as const;

  /** What is wrong with the page as shown: English text, sideways scrolling, serious accessibility violations. */
  const troubles = async (page: Page, english: readonly string[]): Promise<string[]> => {
    const found: string[] = [];
    const text = await page.locator('body').innerText();
    // As a whole phrase: the French "Assistant·e" and the German "Administrator:in" are not English.
    const shown = (phrase: string) => new RegExp(`(?<![\\p{L}])${phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}·:])`, 'u').test(text);
    for (const phrase of english) if (shown(phrase)) found.push(`English: "${phrase}"`);
    if (!(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth))) found.push('scrolls sideways');
    return [...found, ...(await seriousViolations(page)).map((violation) => `axe: ${violation}`)];
  };

  for (const [index, [role, journey]] of Object.entries(journeys).entries()) {
    // The parent's widths are the leader's the other way round, so each pass sees both roles at both.
    const widths = index % 2 === 0 ? ([360, 1280] as const) : ([1280, 360] as const);
    for (const { language, width } of ofThisPass(languagesAtWidths(Object.keys(languages) as (keyof typeof languages)[], widths))) {
      const { locale, words } = languages[language];
      it(`${role}, ${language}: every page in the browser's language, at ${width} px`, async () => {
        const english = language === 'en' ? [] : englishTexts(words as unknown as Record<string, unknown>);
        const found: string[] = [];
        const context = await browser.newContext({ viewport: { width, height: 800 }, locale });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        // The request budget: at most 3 API requests for the first screen, 2 for every later page view.
        const requests: string[] = [];
        page.on('request', (request) => {
          const { pathname } = new URL(request.url());
          if (pathname.startsWith('/api/') && pathname !== '/api/csrf-cookie') requests.push(`${request.method()} ${pathname}`);
        });
        await page.goto(`${web.base}/`);
        await page.getByLabel(words.username).fill(journey.username);
        await page.getByLabel(words.password).fill(`${journey.username} password 1`);
        await expect(page.locator('html').getAttribute('lang')).resolves.toBe(language);
        found.push(...(await troubles(page, english)).map((trouble) => `${width} px, sign-in: ${trouble}`));
        await page.getByRole('button', { name: words.login }).click();
        await page.getByRole('heading', { name: words.nextForUs }).waitFor();
        await page.waitForLoadState('networkidle');
        if (requests.length - 1 > 3) found.push(`${width} px, first screen: ${requests.slice(1).join(', ')}`);
        for (const path of journey.pages()) {
          const before = requests.length;
          await page.evaluate((hash) => {
            location.hash = hash;
          }, `#${path}`);
          await page.locator('main h1').waitFor();
          await page.waitForLoadState('networkidle');
          if (requests.length - before > 2) found.push(`${width} px, ${path}: ${requests.slice(before).join(', ')}`);
          // The parts read on demand (an event's summary, a person's history) are checked opened.
          const closed = page.locator('main details:not([open]) > summary');
          while ((await closed.count()) > 0) await closed.first().click();
          await page.waitForLoadState('networkidle');
          found.push(...(await troubles(page, english)).map((trouble) => `${width} px, ${path}: ${trouble}`));
          if (language !== 'en') await page.screenshot({ path: join(ARTIFACTS, `${role}-${language}-${width}-${path.replace(/\W+/g, '-') || 'home'}.png`), fullPage: true });
        }
        expect(errors).toEqual([]);
        await context.close();
        expect(found).toEqual([]);
      }, 120_000);
    }
  }
});
