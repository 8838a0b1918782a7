import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateApiMessage } from '../../web/src/i18n/api-messages.js';
import type { Words } from '../../web/src/i18n/en.js';
import { formatDate, type Language } from '../../web/src/i18n/index.js';
import { browserAvailable, languagesAtWidths, launchChromium, ofThisPass } from '../helpers/browser.js';
import { ARTIFACTS, startWebServer, type WebServer } from '../helpers/web-server.js';
import { answer, check, LANGUAGES, messageBeside, nextQuestion, serverLogOnFailure, signIn as signInAs, view, visit, type Journey } from '../helpers/web-journey.js';

const ZONE = 'Europe/Zurich';

/**
 * A leader's event pages in Debian's Chromium against the built server, in the tenant's time zone
 * (Zurich) while the browser is in New York: creating an event with every field, editing it (and
 * a change made meanwhile by someone else reported, not overwritten), copying one, deleting one
 * (asked first; a refusal with the API's reason), the print view with the kitchen's, the
 * lifeguard's and the guardians' sheets. In German, French and English, at 360 and 1280 px; every
 * page is free of English text in German and French, never scrolls sideways, passes axe-core, and
 * keeps to its request budget. Every outcome is read back through the API.
 */
describe.runIf(browserAvailable)('the web app: a leader\'s event pages', () => {
  let web: WebServer;
  let browser: Browser;
  const ids = {} as Record<'troop' | 'leader' | 'parent' | 'otherParent' | 'kim' | 'kai' | 'tim' | 'mia' | 'hana' | 'camp', number>;
  const api = (method: string, path: string, body?: object) => web.apiOk(method, path, body);

  /** An event of the troop, every field given unless said otherwise. */
  const newEvent = async (name: string, fields: object = {}) =>
    (
      await api('POST', '/events', {
        group_id: ids.troop,
        name,
        description: 'Zelte, Feuer und ein See.',
        location: 'Zweisimmen',
        starts_at: '2027-07-10T07:00:00Z',
        ends_at: '2027-07-17T14:30:00Z',
        registration_opens_at: '2027-01-15T17:00:00Z',
        registration_closes_at: '2027-06-01T21:59:00Z',
        capacity: 2,
        waiting_list: true,
        requires_approval: false,
        ...fields,
      })
    ).data.event.id as number;
  /** Registers people as the administrator does (accepted while there is room, then waitlisted). */
  const register = (eventId: number, personIds: number[], role = 'participant') => api('POST', `/events/${eventId}/participations`, { person_ids: personIds, role });

  beforeAll(async () => {
    // Many sign-ins and page views within a minute or two: beyond the default limits.
    web = await startWebServer('events', { RATE_LIMIT_AUTHENTICATED: '100000', RATE_LIMIT_UNAUTHENTICATED: '1000', TZ: ZONE });
    const root = (await api('GET', '/groups?limit=1')).data.groups[0].id as number;
    ids.troop = (await api('POST', '/groups', { parent_id: root, name: 'Biber' })).data.group.id;
    const person = async (firstname: string, lastname: string, groupId: number, role: string, details: object = {}, login?: string) =>
      (
        await api('POST', '/people', {
          firstname,
          lastname,
          membership: { group_id: groupId, role_type: role },
          ...details,
          ...(login ? { username: login, password: `${login} password 1`, email: `${login}@example.org` } : {}),
        })
      ).data.person.id as number;
    ids.leader = await person('Lea', 'Lindt', ids.troop, 'leader', {}, 'lea');
    ids.parent = await person('Pia', 'Pfister', root, 'member', { phonenumber: '031 123 45 67', phonenumber_mobile: '079 765 43 21' }, 'pia');
    ids.otherParent = await person('Ugo', 'Pfister', root, 'member', { phonenumber_mobile: '078 111 22 33' });
    ids.kim = await person('Kim', 'Pfister', ids.troop, 'member', { is_vegetarian: true, can_swimm: false });
    ids.kai = await person('Kai', 'Pfister', ids.troop, 'member', { is_vegetarian: false, can_swimm: true });
    ids.tim = await person('Tim', 'Pfister', ids.troop, 'member', { can_swimm: true });
    ids.mia = await person('Mia', 'Meier', ids.troop, 'member', { can_swimm: true });
    ids.hana = await person('Hana', 'Huber', ids.troop, 'member', { is_vegetarian: true, can_swimm: false });
    for (const ward of [ids.kim, ids.kai, ids.tim]) await api('POST', `/people/${ward}/guardians`, { guardian_id: ids.parent });
    await api('POST', `/people/${ids.kai}/guardians`, { guardian_id: ids.otherParent });
    // The camp every page shows: two places taken, one waiting, a helper, one cancelled.
    ids.camp = await newEvent('Pfingstlager');
    await register(ids.camp, [ids.kim, ids.kai, ids.tim]);
    await register(ids.camp, [ids.hana], 'helper');
    const mia = (await register(ids.camp, [ids.mia])).data.participations[0].id as number;
    await api('PATCH', `/participations/${mia}`, { state: 'cancelled' });
    const kims = (await api('GET', `/events/${ids.camp}/participations`)).data.participations.find((p: { person_id: number }) => p.person_id === ids.kim).id as number;
    await api('PATCH', `/participations/${kims}`, { notes: 'Nussallergie' });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
  });

  it('runs in the tenant\'s time zone', async () => {
    expect((await api('GET', '/user/access')).data.tenant.timezone).toBe(ZONE);
  });

  /** The leader signed in, in `language`, on a screen `width` px wide, in a browser that is in New York. */
  const signIn = (language: Language, width: number): Promise<Journey> =>
    signInAs({ web, browser, username: 'lea', password: 'lea password 1', language, width, timeZone: 'America/New_York', name: 'events' });
  const timeLabel = (words: Words, label: string) => words.inTimeZone(label, ZONE);
  const findEvent = async (name: string) => {
    const events = (await api('GET', `/events?group_id=${ids.troop}&q=${encodeURIComponent(name)}`)).data.events as { id: number; name: string }[];
    return events.find((event) => event.name === name) as Record<string, unknown> & { id: number };
  };

  it('lets a leader create an event with every field and edit it, in German, without overwriting a change made meanwhile', async () => {
    serverLogOnFailure(web);
    for (const width of ofThisPass([1280, 360])) {
      const leader = await signIn('de', width);
      const { page, words } = leader;
      const name = `Sommerlager ${width}`;
      await visit(leader, `/groups/${ids.troop}`, 'Biber');
      // The group's events: upcoming and past stay; a link leads to the form (which needs no request).
      await expect(page.getByRole('button', { name: words.upcoming }).count()).resolves.toBe(1);
      expect(await view(leader, () => page.getByRole('link', { name: words.newEvent, exact: true }).click(), words.eventFormTitleNew)).toEqual([]);
      const starts = timeLabel(words, words.startsAt);
      const ends = timeLabel(words, words.endsAt);
      const opens = timeLabel(words, words.registrationOpens);
      const closes = timeLabel(words, words.registrationCloses);

      // The start and the end are needed; an end before the start is refused beside its field, in German.
      await page.getByRole('button', { name: words.create, exact: true }).click();
      await expect.poll(() => messageBeside(page, starts)).toBe(translateApiMessage('The starts at field is required.', 'de'));
      await expect(messageBeside(page, ends)).resolves.toBe(translateApiMessage('The ends at field is required.', 'de'));
      await page.getByLabel(words.name, { exact: true }).fill(name);
      await page.getByLabel(words.description, { exact: true }).fill('Zwei Wochen Zelte, Feuer und See.\nMitnehmen: Schlafsack.');
      await page.getByLabel(words.location, { exact: true }).fill('Zweisimmen');
      await page.getByLabel(starts, { exact: true }).fill('2027-07-10T09:00');
      await page.getByLabel(ends, { exact: true }).fill('2027-07-03T16:30');
      await page.getByLabel(opens, { exact: true }).fill('2027-01-15T18:00');
      await page.getByLabel(closes, { exact: true }).fill('2027-06-01T23:59');
      await page.getByLabel(words.capacity, { exact: true }).fill('24');
      await answer(page, words.waitingListQuestion, words.no).check();
      await answer(page, words.approvalQuestion, words.yes).check();
      await page.getByRole('button', { name: words.create, exact: true }).click();
      await expect.poll(() => messageBeside(page, ends)).toBe(translateApiMessage('The ends at field must be a date after or equal to starts at.', 'de'));
      await expect(page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).resolves.toBe('ends_at');
      await check(leader, 'new event with an error');
      await page.getByLabel(ends, { exact: true }).fill('2027-07-17T16:30');
      await view(leader, () => page.getByRole('button', { name: words.create, exact: true }).click(), name);
      await page.getByRole('status').filter({ hasText: words.eventCreated }).waitFor();
      // Typed in Zurich's summer and winter time, whatever the browser's own zone.
      const created = await findEvent(name);
      expect(created).toMatchObject({
        group_id: ids.troop,
        description: 'Zwei Wochen Zelte, Feuer und See.\nMitnehmen: Schlafsack.',
        location: 'Zweisimmen',
        starts_at: '2027-07-10T07:00:00.000000Z',
        ends_at: '2027-07-17T14:30:00.000000Z',
        registration_opens_at: '2027-01-15T17:00:00.000000Z',
        registration_closes_at: '2027-06-01T21:59:00.000000Z',
        capacity: 24,
        waiting_list: false,
        requires_approval: true,
      });
      await check(leader, 'event');

      // Editing: one request (the event), its values in Zurich's time.
      expect(await view(leader, () => page.getByRole('link', { name: words.editEvent, exact: true }).click(), words.editEventTitle(name))).toEqual([`GET /api/events/${created.id}`]);
      const values = async () => Promise.all([words.name, words.description, words.location, starts, ends, opens, closes, words.capacity].map((label) => page.getByLabel(label, { exact: true }).inputValue()));
      expect(await values()).toEqual([name, 'Zwei Wochen Zelte, Feuer und See.\nMitnehmen: Schlafsack.', 'Zweisimmen', '2027-07-10T09:00', '2027-07-17T16:30', '2027-01-15T18:00', '2027-06-01T23:59', '24']);
      await expect(answer(page, words.waitingListQuestion, words.no).isChecked()).resolves.toBe(true);
      await expect(answer(page, words.approvalQuestion, words.yes).isChecked()).resolves.toBe(true);
      await check(leader, 'edit event');
      await page.getByLabel(words.description, { exact: true }).fill('');
      await page.getByLabel(words.location, { exact: true }).fill('Lenk im Simmental');
      await page.getByLabel(ends, { exact: true }).fill('2027-07-18T11:00');
      await page.getByLabel(closes, { exact: true }).fill('');
      await page.getByLabel(words.capacity, { exact: true }).fill('');
      await answer(page, words.waitingListQuestion, words.yes).check();
      await answer(page, words.approvalQuestion, words.no).check();
      await view(leader, () => page.getByRole('button', { name: words.save, exact: true }).click(), name);
      await page.getByRole('status').filter({ hasText: words.eventSaved(name) }).waitFor();
      expect(await findEvent(name)).toMatchObject({
        description: null,
        location: 'Lenk im Simmental',
        starts_at: '2027-07-10T07:00:00.000000Z',
        ends_at: '2027-07-18T09:00:00.000000Z',
        registration_opens_at: '2027-01-15T17:00:00.000000Z',
        registration_closes_at: null,
        capacity: null,
        waiting_list: true,
        requires_approval: false,
      });
      // From the version read.
      const patch = leader.requests.filter((request) => request.method() === 'PATCH').at(-1)!;
      expect(await patch.headerValue('if-match')).toBeTruthy();

      // Someone else moves the camp meanwhile: the leader's change is refused and said, never written over it.
      await view(leader, () => page.getByRole('link', { name: words.editEvent, exact: true }).click(), words.editEventTitle(name));
      await api('PATCH', `/events/${created.id}`, { location: 'Adelboden' });
      await page.getByLabel(words.location, { exact: true }).fill('Kandersteg');
      await page.getByLabel(words.capacity, { exact: true }).fill('30');
      await page.getByRole('button', { name: words.save, exact: true }).click();
      const alert = page.getByRole('alert').filter({ hasText: words.eventChangedMeanwhile });
      await alert.waitFor();
      await expect(alert.innerText()).resolves.toContain(`${words.location}: Kandersteg`);
      await expect.poll(() => page.getByLabel(words.location, { exact: true }).inputValue()).toBe('Adelboden');
      await expect(page.getByLabel(words.capacity, { exact: true }).inputValue()).resolves.toBe('');
      expect(await findEvent(name)).toMatchObject({ location: 'Adelboden', capacity: null });
      await check(leader, 'edit event after a conflict');
      expect(leader.found).toEqual([]);
      await leader.close();
    }
  }, 180_000);

  it('lets a leader copy an event as a new one and delete one, asked first, the refusal with the API\'s reason, in French', async () => {
    serverLogOnFailure(web);
    for (const width of ofThisPass([360, 1280])) {
      const original = await newEvent(`Camp d’automne ${width}`, { capacity: 8, waiting_list: false, requires_approval: true });
      // A pending registration: the original cannot be deleted.
      await register(original, [ids.kim]);
      const leader = await signIn('fr', width);
      const { page, words } = leader;
      const name = `Camp d’automne ${width}`;
      await visit(leader, `/events/${original}`, name);

      // The copy: the create form filled from the event (one request: the event), in its group, named as a copy, its dates kept.
      expect(await view(leader, () => page.getByRole('link', { name: words.copyEvent, exact: true }).click(), words.copyEventTitle(name))).toEqual([`GET /api/events/${original}`]);
      const starts = timeLabel(words, words.startsAt);
      const ends = timeLabel(words, words.endsAt);
      const copy = words.copyName(name);
      await expect(page.getByLabel(words.name, { exact: true }).inputValue()).resolves.toBe(copy);
      await expect(page.getByLabel(starts, { exact: true }).inputValue()).resolves.toBe('2027-07-10T09:00');
      await expect(page.getByLabel(timeLabel(words, words.registrationCloses), { exact: true }).inputValue()).resolves.toBe('2027-06-01T23:59');
      await expect(page.getByLabel(words.capacity, { exact: true }).inputValue()).resolves.toBe('8');
      await expect(answer(page, words.approvalQuestion, words.yes).isChecked()).resolves.toBe(true);
      await page.getByText(words.copyHint).waitFor();
      await check(leader, 'copy event');
      await page.getByLabel(starts, { exact: true }).fill('2028-10-07T10:00');
      await page.getByLabel(ends, { exact: true }).fill('2028-10-14T15:00');
      await view(leader, () => page.getByRole('button', { name: words.create, exact: true }).click(), copy);
      await page.getByRole('status').filter({ hasText: words.eventCreated }).waitFor();
      const copied = await findEvent(copy);
      expect(copied.id).not.toBe(original);
      expect(copied).toMatchObject({
        group_id: ids.troop,
        description: 'Zelte, Feuer und ein See.',
        location: 'Zweisimmen',
        starts_at: '2028-10-07T08:00:00.000000Z',
        ends_at: '2028-10-14T13:00:00.000000Z',
        registration_opens_at: '2027-01-15T17:00:00.000000Z',
        registration_closes_at: '2027-06-01T21:59:00.000000Z',
        capacity: 8,
        waiting_list: false,
        requires_approval: true,
        participants_count: 0,
      });
      // The original is as it was.
      expect((await api('GET', `/events/${original}`)).data.event).toMatchObject({ name, starts_at: '2027-07-10T07:00:00.000000Z' });

      // Deleting the copy: asked first, naming it and its day; "no" keeps it.
      await view(leader, () => page.getByRole('link', { name: words.editEvent, exact: true }).click(), words.editEventTitle(copy));
      const question = words.confirmDeleteEvent(copy, formatDate('2028-10-07T08:00:00Z', 'fr', ZONE));
      const declined = nextQuestion(page, false);
      await page.getByRole('button', { name: words.deleteEvent, exact: true }).click();
      await expect(declined).resolves.toBe(question);
      expect((await web.api('GET', `/events/${copied.id}`)).data.event.id).toBe(copied.id);
      const accepted = nextQuestion(page, true);
      await view(leader, () => page.getByRole('button', { name: words.deleteEvent, exact: true }).click(), 'Biber');
      await expect(accepted).resolves.toBe(question);
      await page.getByRole('status').filter({ hasText: words.eventDeleted(copy) }).waitFor();
      expect(await web.api('GET', `/events/${copied.id}`)).toMatchObject({ success: false, message: 'Event not found.' });
      await check(leader, 'group after a deletion');

      // The original has a registration: the API refuses, and the page says why beside the button.
      await visit(leader, `/events/${original}/edit`, words.editEventTitle(name));
      void nextQuestion(page, true);
      await page.getByRole('button', { name: words.deleteEvent, exact: true }).click();
      await page.getByRole('alert').filter({ hasText: words.notDeleted(translateApiMessage('The event has participants.', 'fr')) }).waitFor();
      expect((await api('GET', `/events/${original}`)).data.event.id).toBe(original);
      await check(leader, 'refused deletion');
      expect(leader.found).toEqual([]);
      await leader.close();
    }
  }, 180_000);

  it('prints the participant list, the kitchen\'s and the lifeguard\'s sheets and the guardians\' numbers on A4, in English', async () => {
    serverLogOnFailure(web);
    for (const width of ofThisPass([1280, 360])) {
      const leader = await signIn('en', width);
      const { page, words } = leader;
      await visit(leader, `/events/${ids.camp}`, 'Pfingstlager');
      // For managers: edit, copy, print; the downloads, Excel first.
      for (const link of [words.editEvent, words.copyEvent, words.printView]) await expect(page.getByRole('link', { name: link, exact: true }).count()).resolves.toBe(1);
      const xlsx = page.getByRole('link', { name: words.downloadXlsx, exact: true });
      await expect(xlsx.getAttribute('href')).resolves.toBe(`/api/events/${ids.camp}/participations?format=xlsx`);
      const csv = page.getByRole('button', { name: words.downloadCsv, exact: true });
      expect(await xlsx.evaluate((link, other) => Boolean(link.compareDocumentPosition(other!) & Node.DOCUMENT_POSITION_FOLLOWING), await csv.elementHandle())).toBe(true);
      if (width === 1280) {
        // A plain link: the session cookie goes with it, and the browser saves the file.
        const [download] = await Promise.all([page.waitForEvent('download'), xlsx.click()]);
        expect(download.suggestedFilename()).toBe(`participations-${ids.camp}.xlsx`);
        const file = readFileSync((await download.path())!);
        // An XLSX file is a ZIP archive.
        expect(file.subarray(0, 2).toString('latin1')).toBe('PK');
      }

      // The print view reads the event and its participants with their details: two requests.
      expect(await view(leader, () => page.getByRole('link', { name: words.printView, exact: true }).click(), 'Pfingstlager')).toEqual([
        `GET /api/events/${ids.camp}`,
        `GET /api/events/${ids.camp}/participations`,
      ]);
      const list = page.getByRole('region', { name: words.participantList });
      const rows = await list.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
      expect(rows).toEqual([
        ['Hana Huber', 'Helper', 'Accepted', '', '', 'Yes', 'No'],
        ['Kai Pfister', 'Participant', 'Accepted', '', '', 'No', 'Yes'],
        ['Kim Pfister', 'Participant', 'Accepted', '', 'Nussallergie', 'Yes', 'No'],
        ['Tim Pfister', 'Participant', 'Waiting list', '1', '', 'No', 'Yes'],
      ]);
      await expect(page.getByTestId('kitchen').innerText()).resolves.toMatch(/Participants\s+2\s+Helpers\s+1\s+Leaders\s+0\s+Everyone accepted\s+3\s+Vegetarians\s+2/);
      await expect(page.getByRole('list', { name: words.whoIsVegetarian }).innerText()).resolves.toBe('Hana Huber (Helper)\nKim Pfister (Participant)');
      await expect(page.getByRole('list', { name: words.notSwimmers }).innerText()).resolves.toMatch(/^(Hana Huber\nKim Pfister|Kim Pfister\nHana Huber)$/);
      const contacts = await page.getByRole('region', { name: words.emergencyContacts }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
      expect(contacts).toEqual([
        ['Hana Huber', words.noGuardian],
        ['Kai Pfister', 'Pia Pfister', '031 123 45 67', '079 765 43 21', 'pia@example.org'],
        ['Kai Pfister', 'Ugo Pfister', '', '078 111 22 33', ''],
        ['Kim Pfister', 'Pia Pfister', '031 123 45 67', '079 765 43 21', 'pia@example.org'],
      ]);
      await check(leader, 'print view');

      // "Print" opens the browser's print dialog.
      await page.evaluate(() => {
        window.print = () => document.body.setAttribute('data-printed', 'yes');
      });
      await page.getByRole('button', { name: words.print, exact: true }).click();
      await expect(page.locator('body').getAttribute('data-printed')).resolves.toBe('yes');

      // On paper: no header, navigation, skip link or buttons; each sheet on a page of its own, header rows repeated.
      await page.emulateMedia({ media: 'print' });
      for (const hidden of [page.getByRole('banner'), page.getByRole('button', { name: words.print }), page.getByRole('link', { name: words.backToEvent }), page.getByRole('link', { name: words.skipToContent })]) {
        await expect(hidden.isVisible()).resolves.toBe(false);
      }
      const layout = await page.evaluate(() => ({
        breaks: [...document.querySelectorAll('.print-sheet')].map((sheet) => getComputedStyle(sheet).breakBefore),
        headers: [...document.querySelectorAll('thead')].map((head) => getComputedStyle(head).display),
        rows: getComputedStyle(document.querySelector('tbody tr')!).breakInside,
      }));
      expect(layout).toEqual({ breaks: ['auto', 'page', 'page', 'page'], headers: ['table-header-group', 'table-header-group'], rows: 'avoid' });
      if (width === 1280) {
        await page.screenshot({ path: join(ARTIFACTS, 'events-en-print-media.png'), fullPage: true });
        const pdf = await page.pdf({ path: join(ARTIFACTS, 'event-print-a4.pdf'), preferCSSPageSize: true });
        // The header with the participant list, the kitchen, the lifeguard, the guardians: four pages.
        expect(pdf.toString('latin1').match(/\/Type\s*\/Page\b/g)?.length).toBe(4);
        // A4 is 210 x 297 mm: 595 x 842 points.
        const boxes = [...pdf.toString('latin1').matchAll(/\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/g)].map(([, wide, high]) => [Math.round(Number(wide)), Math.round(Number(high))]);
        expect(boxes).toEqual(Array(4).fill([595, 842]));
      }
      await page.emulateMedia({ media: 'screen' });
      expect(leader.found).toEqual([]);
      await leader.close();
    }
  }, 180_000);

  for (const { language, width } of ofThisPass(languagesAtWidths(['de', 'fr', 'en'] as const))) {
    it(`shows every event page in ${language} at ${width} px, within the request budget`, async () => {
      serverLogOnFailure(web);
      const { words } = LANGUAGES[language];
      const leader = await signIn(language, width);
      const pages: [hash: string, heading: string, requests: string[] | null][] = [
        [`/groups/${ids.troop}`, 'Biber', null],
        [`/groups/${ids.troop}/events/new`, words.eventFormTitleNew, []],
        [`/events/${ids.camp}`, 'Pfingstlager', null],
        [`/events/${ids.camp}/edit`, words.editEventTitle('Pfingstlager'), [`GET /api/events/${ids.camp}`]],
        [`/events/${ids.camp}/copy`, words.copyEventTitle('Pfingstlager'), [`GET /api/events/${ids.camp}`]],
        [`/events/${ids.camp}/print`, 'Pfingstlager', [`GET /api/events/${ids.camp}`, `GET /api/events/${ids.camp}/participations`]],
      ];
      for (const [hash, heading, expected] of pages) {
        const made = await visit(leader, hash, heading);
        if (expected) expect(made, hash).toEqual(expected);
        await check(leader, hash);
      }
      expect(leader.found).toEqual([]);
      await leader.close();
    }, 120_000);
  }
});
