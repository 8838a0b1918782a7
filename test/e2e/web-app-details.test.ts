import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Language } from '../../web/src/i18n/index.js';
import { browserAvailable, launchChromium, ofThisPass } from '../helpers/browser.js';
import { http } from '../helpers/processes.js';
import { startWebServer, type WebServer } from '../helpers/web-server.js';
import { check, serverLogOnFailure, signIn as signInAs, view, visit, type Journey } from '../helpers/web-journey.js';

const ZONE = 'Europe/Zurich';
const PASSWORD = 'a password for the camp';
const CASES = [
  { language: 'de', width: 360 },
  { language: 'fr', width: 1280 },
] as const satisfies readonly { language: Language; width: number }[];
/** One parent per case, each with a first name that French elides after "de". */
const PARENTS = ['Anna', 'Ines', 'Olivia', 'Ursula'];
const DESCRIPTION = [
  'Packliste: https://example.org/lager/packliste.pdf.',
  'Anreise (Fahrplan: https://example.org/fahrplan?von=Bern&nach=Thun), Treffpunkt am Bahnhof.',
  '<script>window.hacked = 1</script> <img src=x onerror="window.hacked = 2"> javascript:window.hacked=3 "zitiert"',
].join('\n');

/** The live regions of the page (what a screen reader reads out by itself), with the values of any fields in them. */
const liveText = (page: Page): Promise<string> =>
  page.evaluate(() =>
    [...document.querySelectorAll('[role=status], [role=alert], [role=log], [aria-live]')]
      .map((region) => `${region.textContent} ${[...region.querySelectorAll('input, textarea')].map((field) => (field as HTMLInputElement).value).join(' ')}`)
      .join('\n'),
  );

/**
 * Details of the web app in Debian's Chromium against the built server, in German at 360 px and
 * French at 1280 px: the menu of a parent without roles (no groups, API tokens reached from the profile)
 * and of people with roles; links in an event's description; French "de" elided before a vowel; the
 * calendar page's live regions never holding the secret address; a 429 waited out with a visible,
 * polite status that is gone when the request is answered. Outcomes read back through the API.
 */
describe.runIf(browserAvailable)('the web app: details', () => {
  let web: WebServer;
  let browser: Browser;
  let credentials: { username: string; password: string };
  const ids = {} as Record<'root' | 'troop' | 'emma' | 'mia' | 'event', number>;
  const parents: number[] = [];
  const api = (method: string, path: string, body?: object) => web.apiOk(method, path, body);

  beforeAll(async () => {
    web = await startWebServer('details', { RATE_LIMIT_AUTHENTICATED: '100000', RATE_LIMIT_UNAUTHENTICATED: '1000', TZ: ZONE });
    credentials = JSON.parse(/-d '(\{.*\})'/.exec(web.server.output())![1]!) as typeof credentials;
    ids.root = (await api('GET', '/groups?limit=1')).data.groups[0].id;
    ids.troop = (await api('POST', '/groups', { parent_id: ids.root, name: 'Falken' })).data.group.id;
    const person = async (fields: object) => (await api('POST', '/people', fields)).data.person.id as number;
    ids.emma = await person({ firstname: 'Emma', lastname: 'Muster', birthday: '2015-03-04', membership: { group_id: ids.troop, role_type: 'member' } });
    ids.mia = await person({ firstname: 'Mia', lastname: 'Muster', birthday: '2016-05-06', membership: { group_id: ids.troop, role_type: 'member' } });
    await person({ firstname: 'Lea', lastname: 'Lindt', email: 'lea@example.org', username: 'lea', password: PASSWORD, membership: { group_id: ids.troop, role_type: 'member' } });
    for (const [index, firstname] of PARENTS.entries()) {
      const parent = await person({ firstname, lastname: 'Muster', email: `parent${index}@example.org`, username: `parent${index}`, password: PASSWORD, guardian_of: ids.emma });
      await api('POST', `/people/${ids.mia}/guardians`, { guardian_id: parent });
      parents.push(parent);
    }
    const starts = new Date(Date.now() + 30 * 86_400_000);
    ids.event = (
      await api('POST', '/events', {
        group_id: ids.troop,
        name: 'Sommerlager',
        description: DESCRIPTION,
        starts_at: starts.toISOString(),
        ends_at: new Date(starts.getTime() + 5 * 86_400_000).toISOString(),
      })
    ).data.event.id;
    await api('POST', `/events/${ids.event}/participations`, { person_ids: [ids.emma, ids.mia] });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
  });

  const signIn = (username: string, password: string, language: Language, width: number, name: string): Promise<Journey> =>
    signInAs({ web, browser, username, password, language, width, timeZone: ZONE, name: `details-${name}` });
  const menuLinks = (journey: Journey): Promise<string[]> => journey.page.getByRole('navigation').getByRole('link').allInnerTexts();

  it.each(ofThisPass(CASES.map((item, index) => ({ ...item, index }))))(
    'a parent without roles, $language at $width px: the menu, the event, the calendar address and a 429',
    async ({ language, width, index }) => {
      serverLogOnFailure(web);
      const parent = await signIn(`parent${index}`, PASSWORD, language, width, `parent-${index}`);
      const { page, words } = parent;
      await check(parent, 'home');

      // 1. No groups and no API tokens in the menu; the tokens stay reachable from the profile.
      expect(await menuLinks(parent)).toEqual([words.home, words.wards, words.profile, words.sessions]);
      await view(parent, () => page.getByRole('navigation').getByRole('link', { name: words.profile, exact: true }).click(), words.profile);
      await check(parent, 'profile');
      expect(await view(parent, () => page.getByRole('link', { name: words.openApiTokens, exact: true }).click(), words.apiTokens)).toEqual(['GET /api/tokens']);
      await page.getByText(words.noTokens, { exact: true }).waitFor();
      await check(parent, 'tokens');

      // 2. The event's description: its addresses are links, its line breaks kept, its markup shown as written.
      await visit(parent, `/events/${ids.event}`, 'Sommerlager');
      const description = page.locator('p.linked-text');
      const links = description.getByRole('link');
      expect(await links.evaluateAll((found) => found.map((a) => [a.getAttribute('href'), a.textContent, a.getAttribute('rel'), a.getAttribute('target')]))).toEqual([
        ['https://example.org/lager/packliste.pdf', 'https://example.org/lager/packliste.pdf', 'noopener noreferrer', '_blank'],
        ['https://example.org/fahrplan?von=Bern&nach=Thun', 'https://example.org/fahrplan?von=Bern&nach=Thun', 'noopener noreferrer', '_blank'],
      ]);
      expect(await description.innerText()).toBe(DESCRIPTION);
      expect(await description.locator('br').count()).toBe(2);
      expect(await description.locator('script, img').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
      // 3. French elides "de" before a vowel, and only there.
      await page.getByRole('button', { name: words.cancelRegistrationOf('Emma Muster'), exact: true }).waitFor();
      await page.getByRole('button', { name: words.cancelRegistrationOf('Mia Muster'), exact: true }).waitFor();
      if (language === 'fr') {
        expect(words.cancelRegistrationOf('Emma Muster')).toBe('Annuler l’inscription d’Emma Muster');
        expect(words.cancelRegistrationOf('Mia Muster')).toBe('Annuler l’inscription de Mia Muster');
        // The typographic apostrophe throughout; only the description (data) has straight quotes.
        expect((await page.getByRole('main').innerText()).replace(DESCRIPTION, '')).not.toContain("'");
      }
      await check(parent, 'event');

      // 4. The calendar page: the live regions say what happened, never the secret address.
      await visit(parent, '/profile', words.profile);
      await view(parent, () => page.getByRole('link', { name: words.addToCalendar, exact: true }).click(), words.addToCalendar);
      await page.getByRole('button', { name: words.createCalendarAddress, exact: true }).click();
      await page.getByRole('status').filter({ hasText: words.calendarCreated }).waitFor();
      const address = await page.getByLabel(words.calendarAddress, { exact: true }).inputValue();
      expect(address).toMatch(/^http:\/\/.+\/api\/calendar\/.+\.ics$/);
      // The address works (a calendar app fetches it with nothing else).
      expect((await http(web.server.port, { path: new URL(address).pathname, headers: { host: 'localhost' } })).status).toBe(200);
      expect(await page.getByLabel(words.calendarAddress, { exact: true }).evaluate((field) => field.closest('[role=status], [role=alert], [role=log], [aria-live]'))).toBeNull();
      expect(await liveText(page)).not.toContain(address);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web.base });
      await page.getByRole('button', { name: words.copy, exact: true }).click();
      await page.getByRole('status').filter({ hasText: words.calendarAddressCopied }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(address);
      expect(await liveText(page)).not.toContain(address);
      await check(parent, 'calendar');

      // 5. A 429 (as the rate limit answers it, with a short wait) is waited out in view, politely, then gone.
      await visit(parent, '/profile', words.profile);
      const city = `Thun ${language} ${width}`;
      await page.getByLabel(words.city, { exact: true }).fill(city);
      let refused = 0;
      await page.route('**/api/user', async (route) => {
        if (route.request().method() === 'PATCH' && refused === 0) {
          refused += 1;
          return route.fulfill({ status: 429, headers: { 'retry-after': '2', 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Too Many Attempts.' }) });
        }
        return route.continue();
      });
      const waiting = page.getByRole('status').filter({ hasText: words.retrying(2) });
      const save = page.getByRole('button', { name: words.save, exact: true });
      await save.scrollIntoViewIfNeeded();
      await save.click();
      await waiting.waitFor();
      // In view however far the page is scrolled (the Save button is at the bottom of a long form).
      const box = (await waiting.boundingBox())!;
      const viewport = page.viewportSize()!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      expect(await page.getByRole('alert').count()).toBe(0);
      await check(parent, 'waiting');
      await page.getByRole('status').filter({ hasText: words.saved }).waitFor();
      expect(refused).toBe(1);
      await expect.poll(() => page.getByRole('status').filter({ hasText: words.retrying(2) }).count()).toBe(0);
      expect(await page.locator('.waiting').innerText()).toBe('');
      expect((await api('GET', `/people/${parents[index]}`)).data.person.city).toBe(city);
      await page.unroute('**/api/user');

      expect(parent.found).toEqual([]);
      await parent.close();
    },
    120_000,
  );

  it.each(ofThisPass(CASES))('people with roles, $language at $width px: the menu as before; French "de" elided before a vowel', async ({ language, width }) => {
    serverLogOnFailure(web);
    const admin = await signIn(credentials.username, credentials.password, language, width, `admin-${language}-${width}`);
    const { page, words } = admin;
    expect(await menuLinks(admin)).toEqual([words.home, words.groups, words.profile, words.sessions, words.apiTokens, words.myMessages, words.administration]);
    await view(admin, () => page.getByRole('navigation').getByRole('link', { name: words.groups, exact: true }).click(), words.groups);
    await visit(admin, `/people/${parents[0]}`, 'Anna Muster');
    const wards = page.getByRole('heading', { level: 2, name: words.wardsOf('Anna'), exact: true });
    await wards.waitFor();
    if (language === 'fr') expect(await wards.innerText()).toBe('Enfants d’Anna');
    await check(admin, 'parent');
    expect(admin.found).toEqual([]);
    await admin.close();
  }, 60_000);

  it('a member without any permission still finds the groups and the API tokens in the menu', async () => {
    const member = await signIn('lea', PASSWORD, 'de', 1280, 'member');
    const { words } = member;
    expect(await menuLinks(member)).toEqual([words.home, words.groups, words.profile, words.sessions, words.apiTokens]);
    expect(member.found).toEqual([]);
    await member.close();
  }, 60_000);
});
