import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import ICAL from 'ical.js';
import type { Browser, Download, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Language } from '../../web/src/i18n/index.js';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { startWebServer, type WebServer } from '../helpers/web-server.js';
import { check, nextQuestion, serverLogOnFailure, signIn as signInAs, view, visit, type Journey } from '../helpers/web-journey.js';

const ZONE = 'Europe/Zurich';
const PASSWORD = 'a password for the camp';
const CASES = [
  { language: 'de', width: 360 },
  { language: 'fr', width: 1280 },
  { language: 'en', width: 1280 },
] as const;

/** A port no one listens on now: the server gets it, so that the feed addresses it makes lead back to it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An iCalendar file parsed by ical.js, its time zones registered: its events. */
function parseEvents(text: string): ICAL.Event[] {
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  return calendar.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent));
}

/** A vCard file parsed by ical.js (its vCard support): each card as a component. */
function parseCards(text: string): ICAL.Component[] {
  const parsed = ICAL.parse(text) as unknown[];
  const cards = (parsed[0] === 'vcard' ? [parsed] : parsed) as unknown[][];
  return cards.map((card) => new ICAL.Component(card));
}
const fullName = (card: ICAL.Component) => String(card.getFirstPropertyValue('fn'));

/** What `click` downloads: its suggested name and its text. */
async function downloaded(journey: Journey, click: () => Promise<unknown>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([journey.page.waitForEvent('download'), click()]);
  const file = await (download as Download).path();
  return { name: (download as Download).suggestedFilename(), text: await readFile(file!, 'utf8') };
}

/**
 * Calendars and contacts in Debian's Chromium against the built server: a parent makes the
 * family's calendar address (shown once, with a copy button and a QR code), a calendar fetches it
 * (parsed by ical.js: the ward's camp is in it), the address is replaced (the old one answers 404)
 * and the feed stopped (404), each asked first; an event's .ics file; a members table's and a
 * person's contacts as vCard files, parsed by ical.js. German at 360 px, French and English at
 * 1280 px; no English text in German or French pages, no sideways scrolling, clean for axe-core,
 * within the request budget; outcomes read back through the API.
 */
describe.runIf(browserAvailable)('the web app: calendars and contacts', () => {
  let web: WebServer;
  let browser: Browser;
  const ids = {} as Record<'root' | 'troop' | 'lea' | 'mia' | 'camp', number>;
  const parents = {} as Record<Language, number>;
  const api = (method: string, path: string, body?: object) => web.apiOk(method, path, body);

  beforeAll(async () => {
    const port = await freePort();
    web = await startWebServer('calendars', {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_AUTHENTICATED: '100000',
      RATE_LIMIT_UNAUTHENTICATED: '1000',
      TZ: ZONE,
    });
    ids.root = (await api('GET', '/groups?limit=1')).data.groups[0].id;
    ids.troop = (await api('POST', '/groups', { parent_id: ids.root, name: 'Falken' })).data.group.id;
    const person = async (fields: object) => (await api('POST', '/people', fields)).data.person.id as number;
    ids.lea = await person({
      firstname: 'Lea',
      lastname: 'Lindt',
      email: 'lea@example.org',
      phonenumber_mobile: '+41 79 111 22 33',
      username: 'lea',
      password: PASSWORD,
      membership: { group_id: ids.troop, role_type: 'leader' },
    });
    ids.mia = await person({
      firstname: 'Mia',
      lastname: 'Muster',
      birthday: '2015-04-03',
      street: 'Bahnhofstrasse',
      housenumber: '12a',
      zip: '8001',
      city: 'Zürich',
      membership: { group_id: ids.troop, role_type: 'member' },
    });
    // A parent per language, each a guardian of Mia: one feed each.
    for (const { language } of CASES) {
      parents[language] = await person({
        firstname: 'Paula',
        lastname: `Muster ${language}`,
        email: `paula.${language}@example.org`,
        phonenumber: '+41 44 123 45 67',
        username: `paula-${language}`,
        password: PASSWORD,
        guardian_of: ids.mia,
      });
    }
    // On a whole minute: a calendar's times have seconds at most.
    const starts = new Date(Math.floor((Date.now() + 30 * 86_400_000) / 60_000) * 60_000);
    ids.camp = (
      await api('POST', '/events', {
        group_id: ids.troop,
        name: 'Sommerlager, Zelte; Wald',
        location: 'Kandersteg',
        starts_at: starts.toISOString(),
        ends_at: new Date(starts.getTime() + 5 * 86_400_000).toISOString(),
      })
    ).data.event.id;
    await api('POST', `/events/${ids.camp}/participations`, { person_ids: [ids.mia] });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
  });

  const signIn = (username: string, language: Language, width: number, name: string): Promise<Journey> =>
    signInAs({ web, browser, username, password: PASSWORD, language, width, timeZone: 'America/New_York', name: `calendars-${name}` });

  /** The parent's own token (the API read-back of the feed is theirs). */
  const tokenOf = async (username: string): Promise<string> => {
    const answer = await fetch(`${web.base}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ username, password: PASSWORD }) });
    return ((await answer.json()) as { api_key: { plainTextToken: string } }).api_key.plainTextToken;
  };

  /** The address shown once on the page, read from its field. */
  const shownAddress = (journey: Journey): Promise<string> => journey.page.getByLabel(journey.words.calendarAddress, { exact: true }).inputValue();

  it('makes the calendar address (copy, QR code), which a calendar fetches; replaces it and stops it, each asked first', async () => {
    serverLogOnFailure(web);
    for (const { language, width } of CASES) {
      const username = `paula-${language}`;
      const parent = await signIn(username, language, width, 'feed');
      const { page, words } = parent;
      // From the home page, and (English) from the profile: one read, whether there is a feed.
      if (language === 'en') {
        await visit(parent, '/profile', words.profile);
        expect(await view(parent, () => page.getByRole('main').getByRole('link', { name: words.addToCalendar, exact: true }).click(), words.addToCalendar)).toEqual(['GET /api/user/calendar']);
      } else {
        expect(await view(parent, () => page.getByRole('main').getByRole('link', { name: words.addToCalendar, exact: true }).click(), words.addToCalendar)).toEqual(['GET /api/user/calendar']);
      }
      await expect.poll(() => page.getByTestId('calendar-status').innerText()).toBe(words.calendarNone);
      await check(parent, 'calendar, none yet');

      await page.getByRole('button', { name: words.createCalendarAddress, exact: true }).click();
      await expect.poll(() => shownAddress(parent)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
      const first = await shownAddress(parent);
      await page.getByRole('button', { name: words.copy, exact: true }).waitFor();
      const qr = page.getByRole('img', { name: words.calendarQrCode, exact: true });
      await qr.waitFor();
      expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
      await page.getByText(words.calendarPrivacy, { exact: true }).waitFor();
      await expect.poll(() => page.getByTestId('calendar-status').innerText()).toContain(words.calendarNeverFetched);
      await check(parent, 'calendar, address shown');

      // A calendar app fetches the address with nothing else: the ward's camp is in it.
      const feed = await fetch(first);
      expect(feed.status).toBe(200);
      expect(feed.headers.get('content-type')).toMatch(/^text\/calendar/);
      const events = parseEvents(await feed.text());
      const camp = events.find((event) => event.uid.startsWith(`event-${ids.camp}@`));
      expect(camp?.summary).toBe('Sommerlager, Zelte; Wald');
      expect(camp?.location).toBe('Kandersteg');
      expect(camp?.description).toContain('Mia');
      expect(camp?.description).not.toContain('Muster');
      expect(camp?.component.getFirstProperty('dtstart')?.getParameter('tzid')).toBe(ZONE);
      const token = await tokenOf(username);
      expect((await web.api('GET', '/user/calendar', undefined, token)).data.calendar).toMatchObject({ created_at: expect.any(String) });

      // Replacing asks first; "no" keeps the address.
      let asked = nextQuestion(page, false);
      await page.getByRole('button', { name: words.replaceCalendarAddress, exact: true }).click();
      expect(await asked).toBe(words.confirmReplaceCalendar);
      expect((await fetch(first)).status).toBe(200);
      asked = nextQuestion(page, true);
      await page.getByRole('button', { name: words.replaceCalendarAddress, exact: true }).click();
      expect(await asked).toBe(words.confirmReplaceCalendar);
      await expect.poll(() => shownAddress(parent)).not.toBe(first);
      const second = await shownAddress(parent);
      await page.getByRole('status').filter({ hasText: words.calendarReplaced }).waitFor();
      const old = await fetch(first);
      expect(old.status).toBe(404);
      expect(await old.json()).toEqual({ success: false, message: 'Calendar not found.' });
      expect((await fetch(second)).status).toBe(200);
      await check(parent, 'calendar, replaced');

      // Stopping asks first, then the address answers 404 and the page says there is none.
      asked = nextQuestion(page, true);
      await page.getByRole('button', { name: words.stopCalendarFeed, exact: true }).click();
      expect(await asked).toBe(words.confirmStopCalendar);
      await page.getByRole('status').filter({ hasText: words.calendarStopped }).waitFor();
      await expect.poll(() => page.getByTestId('calendar-status').innerText()).toBe(words.calendarNone);
      expect(await page.getByLabel(words.calendarAddress, { exact: true }).count()).toBe(0);
      expect((await fetch(second)).status).toBe(404);
      expect((await web.api('GET', '/user/calendar', undefined, token)).data.calendar).toBeNull();
      await check(parent, 'calendar, stopped');
      expect(parent.found).toEqual([]);
      await parent.close();
    }
  }, 240_000);

  it("downloads an event as an .ics file from the event's page, for a parent and for a leader", async () => {
    serverLogOnFailure(web);
    for (const { language, width } of CASES) {
      const leader = language === 'fr';
      const reader = await signIn(leader ? 'lea' : `paula-${language}`, language, width, 'event-file');
      await visit(reader, `/events/${ids.camp}`, 'Sommerlager, Zelte; Wald');
      await check(reader, 'event');
      const file = await downloaded(reader, () => reader.page.getByRole('link', { name: reader.words.downloadIcs, exact: true }).click());
      expect(file.name).toBe(`event-${ids.camp}.ics`);
      const [event, ...others] = parseEvents(file.text);
      expect(others).toEqual([]);
      expect(event!.summary).toBe('Sommerlager, Zelte; Wald');
      expect(event!.component.getFirstProperty('dtstart')?.getParameter('tzid')).toBe(ZONE);
      const starts = (await api('GET', `/events/${ids.camp}`)).data.event.starts_at as string;
      expect(event!.startDate.toJSDate().getTime()).toBe(new Date(starts).getTime());
      // A parent's file names the family's registration (the leader is not of Mia's family).
      if (leader) expect(event!.description ?? '').not.toContain('Mia');
      else expect(event!.description).toContain('Mia');
      expect(reader.found).toEqual([]);
      await reader.close();
    }
  }, 120_000);

  it("downloads contacts as vCards from a members table (its filters) and from a person's page", async () => {
    serverLogOnFailure(web);
    for (const { language, width } of CASES) {
      const leader = await signIn('lea', language, width, 'contacts');
      const { page, words } = leader;
      await visit(leader, `/groups/${ids.troop}`, 'Falken');
      // The table's filters go with the file: a search for "Muster" lists Mia, with her guardians' cards after her.
      const filters = page.getByRole('search').filter({ has: page.getByRole('searchbox', { name: words.search, exact: true }) });
      await filters.getByRole('searchbox', { name: words.search, exact: true }).fill('Muster');
      await filters.getByRole('button', { name: words.search, exact: true }).click();
      const link: Locator = page.getByRole('link', { name: words.downloadContacts, exact: true });
      await expect.poll(() => link.getAttribute('href')).toMatch(/q=Muster/);
      expect(await link.getAttribute('href')).toMatch(/format=vcf/);
      await check(leader, 'members, contacts');
      const list = await downloaded(leader, () => link.click());
      expect(list.name).toMatch(new RegExp(`^members-${ids.troop}-\\d{4}-\\d{2}-\\d{2}\\.vcf$`));
      const cards = parseCards(list.text);
      const mia = cards.find((card) => fullName(card) === 'Mia Muster');
      expect(mia).toBeDefined();
      // Only what the table shows (Lea, a member too, is not "Muster"), and the guardians' own cards.
      expect(cards.map(fullName).sort()).toEqual(['Mia Muster', ...CASES.map(({ language }) => `Paula Muster ${language}`)].sort());
      const guardianUids = mia!.getAllProperties('related').map((related) => String(related.getFirstValue()));
      expect(guardianUids).toHaveLength(CASES.length);
      // Every guardian named has a card of their own in the file.
      const uids = cards.map((card) => String(card.getFirstPropertyValue('uid')));
      for (const uid of guardianUids) expect(uids).toContain(uid);

      // A person's page: the card of that one person, named after them.
      expect(await visit(leader, `/people/${ids.mia}`, 'Mia Muster')).toEqual([`GET /api/people/${ids.mia}`]);
      await check(leader, 'person, contact');
      const one = await downloaded(leader, () => page.getByRole('button', { name: words.downloadContact, exact: true }).click());
      expect(one.name).toBe('Mia-Muster.vcf');
      const [card, ...more] = parseCards(one.text);
      expect(more).toEqual([]);
      expect(fullName(card!)).toBe('Mia Muster');
      expect(String(card!.getFirstPropertyValue('bday'))).toMatch(/2015-?04-?03/);
      expect(card!.getFirstPropertyValue('uid')).toBe(mia!.getFirstPropertyValue('uid'));
      expect(card!.getAllProperties('related').map((related) => String(related.getFirstValue())).sort()).toEqual([...guardianUids].sort());
      expect(leader.found).toEqual([]);
      await leader.close();
    }
  }, 180_000);
});
