import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateApiMessage } from '../../web/src/i18n/api-messages.js';
import { formatDate, formatMoment, type Language } from '../../web/src/i18n/index.js';
import { browserAvailable, launchChromium, ofThisPass } from '../helpers/browser.js';
import { http } from '../helpers/processes.js';
import { startWebServer, type WebServer } from '../helpers/web-server.js';
import { answer, check, messageBeside, nextQuestion, requestsDuring, serverLogOnFailure, signIn as signInAs, view, visit, type Journey } from '../helpers/web-journey.js';

const ZONE = 'Europe/Zurich';
const WIDTHS = [1280, 360] as const;
const PASSWORD = 'a password for the camp';

/** Today in `timeZone`, YYYY-MM-DD. */
const todayIn = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
/** Full years from `birthday` to `today`. */
const ageOn = (birthday: string, today: string) => Number(today.slice(0, 4)) - Number(birthday.slice(0, 4)) - (today.slice(5) < birthday.slice(5) ? 1 : 0);
/** A day as a confirmation names it, in the reader's language. */
const dayIn = (day: string, language: Language) => formatDate(`${day}T12:00:00Z`, language, 'UTC');

interface Membership {
  id: number;
  group_id: number;
  role_type: string;
  start_on: string;
  end_on: string | null;
}

/**
 * A leader's people pages in Debian's Chromium against the built server: the members table with
 * its sorting, filters, paging, downloads and bulk actions (each one request); adding a person
 * with every field, a login, errors beside their fields and the duplicate warning; a person's page
 * (editing with If-Match, the locked e-mail of someone with a login, memberships, guardians,
 * registrations, history on demand). In German, French and English, at 1280 and 360 px, every
 * page free of English text in German and French, never scrolling sideways, clean for axe-core,
 * within its request budget, without script errors. Every outcome is read back through the API.
 */
describe.runIf(browserAvailable)("the web app: a leader's people pages", () => {
  let web: WebServer;
  let browser: Browser;
  let today: string;
  const ids = {} as Record<
    'root' | 'falken' | 'woelfe' | 'biber' | 'lea' | 'anna' | 'erik' | 'mia' | 'nora' | 'lou' | 'kim' | 'pia' | 'ugo' | 'tom' | 'tia' | 'camp' | 'party',
    number
  >;
  /** The two people each width's bulk actions work on, by width. */
  const chosen: Record<number, { lastname: string; firstnames: [string, string]; ids: number[] }> = {
    1280: { lastname: 'Gerber', firstnames: ['Gian', 'Gina'], ids: [] },
    360: { lastname: 'Graf', firstnames: ['Gabi', 'Goran'], ids: [] },
  };
  const api = (method: string, path: string, body?: object) => web.apiOk(method, path, body);
  const membershipsOf = async (personId: number) => (await api('GET', `/people/${personId}/memberships`)).data.memberships as Membership[];
  const guardiansOf = async (personId: number) =>
    ((await api('GET', `/people/${personId}?include=guardians`)).data.guardians as { id: number; firstname: string; lastname: string }[]).map((g) => `${g.firstname} ${g.lastname}`).sort();

  /** The fields the person's latest update changed, by the API's history. */
  const lastChangeOf = async (personId: number) => {
    const history = (await api('GET', `/people/${personId}/history`)).data.changes as { entity: string; action: string; changes: Record<string, unknown> }[];
    return Object.keys(history.find((change) => change.entity === 'person' && change.action === 'updated')?.changes ?? {}).sort();
  };

  beforeAll(async () => {
    // Six sign-ins and a few hundred requests within a minute or two: beyond the default limits.
    web = await startWebServer('leaders', { RATE_LIMIT_AUTHENTICATED: '100000', RATE_LIMIT_UNAUTHENTICATED: '1000', TZ: ZONE });
    today = todayIn(ZONE);
    ids.root = (await api('GET', '/groups?limit=1')).data.groups[0].id;
    const group = async (parent_id: number, name: string) => (await api('POST', '/groups', { parent_id, name })).data.group.id as number;
    ids.falken = await group(ids.root, 'Falken');
    ids.woelfe = await group(ids.falken, 'Wölfe');
    ids.biber = await group(ids.falken, 'Biber');
    type Where = { group_id: number; role_type: string; start_on?: string } | { guardian_of: number };
    const person = async (firstname: string, lastname: string, where: Where, details: object = {}) =>
      (await api('POST', '/people', { firstname, lastname, ...('guardian_of' in where ? where : { membership: where }), ...details })).data.person.id as number;
    const inFalken = (role_type = 'member') => ({ group_id: ids.falken, role_type });
    const inWoelfe = { group_id: ids.woelfe, role_type: 'member' };

    ids.lea = await person('Lea', 'Lindt', inFalken('leader'), { birthday: '1990-02-01', phonenumber_mobile: '079 100 00 01', username: 'lea', password: PASSWORD, email: 'lea@example.org' });
    await person('Sina', 'Suter', inFalken('assistant'), { birthday: '2001-05-05' });
    ids.anna = await person('Anna', 'Amsler', inFalken(), { birthday: '2012-03-14', phonenumber: '031 222 33 44', email: 'anna.amsler@example.org' });
    await person('Ben', 'Brunner', inFalken(), { birthday: '2014-08-20', phonenumber_mobile: '079 333 44 55' });
    await person('Cla', 'Caflisch', inFalken());
    // Erik left the troop for a patrol below it (someone with no active membership at all the leader would not see).
    ids.erik = await person('Erik', 'Ende', { group_id: ids.woelfe, role_type: 'member' });
    await api('POST', '/memberships', { person_id: ids.erik, group_id: ids.falken, role_type: 'member', start_on: '2020-01-01', end_on: '2024-12-31' });
    for (const width of WIDTHS) {
      const { lastname, firstnames } = chosen[width]!;
      for (const firstname of firstnames) chosen[width]!.ids.push(await person(firstname, lastname, inFalken()));
    }
    // Enough for a second page of the table (50 a page).
    for (let batch = 0; batch < 5; batch += 1) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => person(`Lina ${String(batch * 10 + i + 1).padStart(2, '0')}`, 'Zaugg', inFalken())));
    }
    ids.mia = await person('Mia', 'Meier', inWoelfe);
    ids.nora = await person('Nora', 'Nef', inWoelfe, { birthday: '2011-04-05' });
    ids.lou = await person('Lou', 'Lehmann', inWoelfe, { username: 'lou', password: PASSWORD, email: 'lou@example.org', city: 'Bern' });
    ids.kim = await person('Kim', 'Keller', inWoelfe, { birthday: '2013-09-09' });
    await api('POST', '/memberships', { person_id: ids.kim, group_id: ids.biber, role_type: 'member', start_on: '2021-01-01', end_on: '2023-12-31' });
    // Parents without a membership of their own.
    ids.pia = await person('Pia', 'Pfister', { guardian_of: ids.kim }, { email: 'pia@example.org', phonenumber_mobile: '079 555 66 77' });
    ids.ugo = await person('Ugo', 'Pfister', { guardian_of: ids.mia }, { email: 'ugo.pfister@example.org' });
    const subject = { birthday: '2012-12-12', phonenumber: '031 444 55 66', street: 'Marktgasse', housenumber: '1', zip: '3011', city: 'Bern' };
    ids.tom = await person('Tom', 'Tanner', inWoelfe, subject);
    ids.tia = await person('Tia', 'Tobler', inWoelfe, subject);
    const event = async (name: string, starts_at: string, ends_at: string) => (await api('POST', '/events', { group_id: ids.falken, name, starts_at, ends_at })).data.event.id as number;
    ids.camp = await event('Herbstlager', '2027-10-10T07:00:00Z', '2027-10-16T14:00:00Z');
    ids.party = await event('Waldweihnacht', '2027-12-18T16:00:00Z', '2027-12-18T20:00:00Z');
    await api('POST', `/events/${ids.camp}/participations`, { person_ids: [ids.kim, ids.tom, ids.tia] });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
  });

  /** Lea, the troop's leader, signed in; the browser is in New York, the tenant in Zurich. */
  const signIn = (language: Language, width: number): Promise<Journey> =>
    signInAs({ web, browser, username: 'lea', password: PASSWORD, language, width, timeZone: 'America/New_York', name: 'leaders' });

  /**
   * What a download link brings, fetched in the page (the session cookie goes with it as with a
   * click): status, type, file name, the first two bytes (an XLSX file is a ZIP archive: "PK"), a CSV's lines.
   */
  const download = async (page: Page, link: Locator) => {
    expect(await link.getAttribute('download')).not.toBeNull();
    return page.evaluate(async (href) => {
      const response = await fetch(href!);
      const body = new Uint8Array(await response.arrayBuffer());
      const type = response.headers.get('content-type');
      const lines = type?.startsWith('text/csv') ? new TextDecoder().decode(body).trim().split(/\r?\n/) : [];
      return { status: response.status, type, disposition: response.headers.get('content-disposition'), start: new TextDecoder().decode(body.slice(0, 2)), lines };
    }, await link.getAttribute('href'));
  };
  type Downloaded = Awaited<ReturnType<typeof download>>;

  /** A part of the page that has a heading of its own (a card). */
  const card = (page: Page, heading: string) => page.locator('section', { has: page.getByRole('heading', { level: 2, name: heading, exact: true }) });

  /**
   * The three pages, checked as shown: the group (its members and events: two reads), adding a
   * person (no read), a person (one read; the history read when opened).
   */
  const tour = async (leader: Journey) => {
    const { page, words } = leader;
    expect(await visit(leader, `/groups/${ids.falken}`, 'Falken')).toEqual(['GET /api/events', `GET /api/groups/${ids.falken}/members`]);
    await check(leader, 'group');
    expect(await visit(leader, `/groups/${ids.falken}/people/new`, words.addPersonTo('Falken'))).toEqual([]);
    await check(leader, 'new person');
    expect(await visit(leader, `/people/${ids.kim}`, 'Kim Keller')).toEqual([`GET /api/people/${ids.kim}`]);
    await page.getByText(words.endedMemberships(1)).click();
    expect(await requestsDuring(leader, () => page.getByRole('heading', { name: words.history, exact: true }).click())).toEqual([`GET /api/people/${ids.kim}/history`]);
    await check(leader, 'person');
  };

  it('runs in the tenant\'s time zone', async () => {
    expect((await api('GET', '/user/access')).data.tenant.timezone).toBe(ZONE);
  });

  it('shows a group\'s members as a table to sort, search, filter and page through, and acts on the chosen in one request each, in German', async () => {
    serverLogOnFailure(web);
    const files: { width: number; names: string[]; xlsx: Downloaded; csv: Downloaded }[] = [];
    for (const width of ofThisPass(WIDTHS)) {
      const leader = await signIn('de', width);
      const { page, words } = leader;
      await tour(leader);
      await visit(leader, `/groups/${ids.falken}`, 'Falken');
      const table = page.getByRole('table');
      const rows = table.locator('tbody tr');
      // Each row's cells after the checkbox: name, roles, group, age, phone, e-mail.
      const cells = () => rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent?.trim() ?? '')));
      const names = async () => (await cells()).map((row) => row[0]);
      const fromApi = async (query: string) => {
        const data = (await api('GET', `/groups/${ids.falken}/members?limit=50${query}`)).data;
        return { names: (data.members as { person: { firstname: string; lastname: string } }[]).map(({ person }) => `${person.lastname} ${person.firstname}`), total: data.total as number };
      };
      const count = page.getByRole('heading', { level: 2, name: words.members });
      const filters = page.getByRole('search').filter({ has: page.getByRole('searchbox', { name: words.search, exact: true }) });
      const search = async (text: string) => {
        await filters.getByRole('searchbox', { name: words.search, exact: true }).fill(text);
        return requestsDuring(leader, () => filters.getByRole('button', { name: words.search, exact: true }).click());
      };
      const membersRead = [`GET /api/groups/${ids.falken}/members`];

      // The columns; the first page of 50 with the count of all.
      expect(await table.getByRole('columnheader').allInnerTexts()).toEqual(['', words.name, words.role, words.group, words.age, words.phonenumber, words.email]);
      const everyone = await fromApi('&sort=name');
      await expect(count.innerText()).resolves.toContain(`(${words.memberCount(everyone.total)})`);
      expect(everyone.total).toBeGreaterThan(50);
      expect(await names()).toEqual(everyone.names);
      const row = async (name: string) => (await cells()).find((cells) => cells[0] === name);
      expect(await row('Amsler Anna')).toEqual(['Amsler Anna', words.roleMember, 'Falken', String(ageOn('2012-03-14', today)), '031 222 33 44', 'anna.amsler@example.org']);
      expect(await row('Lindt Lea')).toEqual(['Lindt Lea', words.roleLeader, 'Falken', String(ageOn('1990-02-01', today)), '079 100 00 01', 'lea@example.org']);
      expect(await row('Caflisch Cla')).toEqual(['Caflisch Cla', words.roleMember, 'Falken', '', '', '']);

      // Sorted by name both ways, by age both ways, by role: one request each, the order the API gives.
      const sortBy = async (column: string, sort: string, ariaSort: string) => {
        const header = table.getByRole('columnheader', { name: column, exact: true });
        expect(await requestsDuring(leader, () => header.getByRole('button').click())).toEqual(membersRead);
        await expect(header.getAttribute('aria-sort')).resolves.toBe(ariaSort);
        const shown = await names();
        expect(shown).toEqual((await fromApi(`&sort=${sort}`)).names);
        return shown;
      };
      expect((await sortBy(words.name, '-name', 'descending'))[0]).toBe('Zaugg Lina 50');
      const ages = (await sortBy(words.age, '-birthday', 'ascending')).length;
      const youngestFirst = (await cells()).map((cells) => cells[3]);
      expect(youngestFirst[0]).toBe(String(ageOn('2014-08-20', today)));
      const known = youngestFirst.filter((age) => age !== '').map(Number);
      expect(known).toEqual([...known].sort((a, b) => a - b));
      // Unknown birthdays last.
      expect(youngestFirst.slice(known.length)).toEqual(Array(ages - known.length).fill(''));
      expect((await sortBy(words.age, 'birthday', 'descending'))[0]).toBe('Lindt Lea');
      expect((await sortBy(words.name, 'name', 'ascending')).slice(0, 3)).toEqual(['Amsler Anna', 'Brunner Ben', 'Caflisch Cla']);
      await sortBy(words.role, 'role', 'descending');
      const roles = (await cells()).map((cells) => cells[1]);
      expect(roles[0]).toBe(words.roleLeader);
      const strength = [words.roleLeader, words.roleAssistant, words.roleMember];
      expect(roles.map((role) => strength.indexOf(role!))).toEqual(roles.map((role) => strength.indexOf(role!)).sort((a, b) => a - b));
      await check(leader, 'members sorted by role');

      // A search; the count follows it.
      expect(await search('amsler')).toEqual(membersRead);
      expect(await names()).toEqual(['Amsler Anna']);
      await expect(count.innerText()).resolves.toContain(`(${words.memberCount(1)})`);
      // A role filter (applied with the search button).
      await search('');
      await filters.getByRole('combobox', { name: words.role, exact: true }).selectOption('assistant');
      expect(await search('')).toEqual(membersRead);
      const assistants = await fromApi('&role_type=assistant&sort=role');
      expect(await names()).toEqual(assistants.names);
      expect(assistants.names).toContain('Suter Sina');
      expect(new Set((await cells()).map((cells) => cells[1]))).toEqual(new Set([words.roleAssistant]));
      await filters.getByRole('combobox', { name: words.role, exact: true }).selectOption('');
      // With subgroups: Mia is in Wölfe, below Falken.
      await search('Meier');
      await expect(rows.count()).resolves.toBe(0);
      expect(await requestsDuring(leader, () => filters.getByLabel(words.includeSubgroups).check())).toEqual(membersRead);
      expect(await cells()).toEqual([['Meier Mia', words.roleMember, 'Wölfe', '', '', '']]);
      await filters.getByLabel(words.includeSubgroups).uncheck();
      // With ended memberships: Erik left at the end of 2024.
      await search('Ende');
      await expect(rows.count()).resolves.toBe(0);
      expect(await requestsDuring(leader, () => filters.getByLabel(words.includeEnded).check())).toEqual(membersRead);
      expect(await cells()).toEqual([['Ende Erik', `${words.roleMember} (${words.ended})`, 'Falken', '', '', '']]);
      await check(leader, 'members with ended memberships');
      await filters.getByLabel(words.includeEnded).uncheck();

      // The next page on demand, one request: every member once, still by role.
      await search('');
      await expect(rows.count()).resolves.toBe(50);
      expect(await requestsDuring(leader, () => page.getByRole('button', { name: words.more, exact: true }).click())).toEqual(membersRead);
      const all = (await api('GET', `/groups/${ids.falken}/members?limit=200&sort=role`)).data.members as { person: { firstname: string; lastname: string } }[];
      expect(await names()).toEqual(all.map(({ person }) => `${person.lastname} ${person.firstname}`));
      await expect(page.getByRole('button', { name: words.more, exact: true }).count()).resolves.toBe(0);

      // The table's own files: Excel first, the session cookie goes with the link, named by group and day.
      const downloads = page.getByRole('paragraph').filter({ has: page.getByRole('link', { name: words.downloadCsv, exact: true }) });
      expect(await downloads.getByRole('link').allInnerTexts()).toEqual([words.downloadXlsx, words.downloadCsv]);
      const fetched = (link: Locator) => download(page, link);
      const xlsx = await fetched(downloads.getByRole('link', { name: words.downloadXlsx, exact: true }));
      expect(xlsx).toMatchObject({ status: 200, type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', start: 'PK' });
      expect(xlsx.disposition).toContain(`filename="members-${ids.falken}-${today}.xlsx"`);
      const csv = await fetched(downloads.getByRole('link', { name: words.downloadCsv, exact: true }));
      expect(csv).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/csv/) });
      expect(csv.disposition).toContain(`filename="members-${ids.falken}-${today}.csv"`);
      // One row a person, the roles last; the filters of the table (here: none) apply.
      expect(csv.lines[0]).toMatch(/,roles$/);
      expect(csv.lines).toHaveLength(all.length + 1);

      // Choosing rows: the two of this width, every one shown.
      const { lastname, firstnames, ids: people } = chosen[width]!;
      /** The two chosen row by row, or with the box that chooses every row shown. */
      const choose = async (how: 'each' | 'all') => {
        if ((await filters.getByRole('searchbox', { name: words.search, exact: true }).inputValue()) !== lastname) await search(lastname);
        await expect.poll(names).toEqual(firstnames.map((first) => `${lastname} ${first}`));
        const everyone = page.getByRole('checkbox', { name: words.selectAllShown, exact: true });
        if (how === 'all') await everyone.check();
        else {
          for (const first of firstnames) await page.getByRole('checkbox', { name: words.selectPerson(`${first} ${lastname}`), exact: true }).check();
          await expect(everyone.isChecked()).resolves.toBe(true);
        }
        const bulk = page.getByRole('region', { name: words.chosenCount(2), exact: true });
        await bulk.waitFor();
        return bulk;
      };
      const act = async (bulk: Locator, action: string) => {
        await bulk.getByRole('group', { name: words.chosenCount(2), exact: true }).getByRole('button', { name: action, exact: true }).click();
        return bulk.locator('form');
      };
      const writes = (made: string[]) => made.filter((request) => !request.startsWith('GET '));

      // Registered for an event, as helpers: one request.
      let bulk = await choose('all');
      let form = await act(bulk, words.bulkRegister);
      await form.getByRole('combobox', { name: words.event, exact: true }).selectOption(String(ids.party));
      await form.getByRole('combobox', { name: words.asRole, exact: true }).selectOption('helper');
      await check(leader, 'members, register the chosen');
      expect(writes(await requestsDuring(leader, () => form.getByRole('button', { name: words.bulkRegister, exact: true }).click()))).toEqual([`POST /api/events/${ids.party}/participations`]);
      await page.getByRole('status').filter({ hasText: words.registeredFor(2, 'Waldweihnacht') }).waitFor();
      const registered = (await api('GET', `/events/${ids.party}/participations`)).data.participations as { person_id: number; role: string; state: string }[];
      expect(registered.filter((p) => people.includes(p.person_id)).map(({ person_id, role, state }) => ({ person_id, role, state }))).toEqual(people.map((person_id) => ({ person_id, role: 'helper', state: 'accepted' })));
      // Again: all or nothing, each refusal named with the API's reason in German.
      bulk = await choose('each');
      form = await act(bulk, words.bulkRegister);
      await form.getByRole('combobox', { name: words.event, exact: true }).selectOption(String(ids.party));
      expect(writes(await requestsDuring(leader, () => form.getByRole('button', { name: words.bulkRegister, exact: true }).click()))).toEqual([`POST /api/events/${ids.party}/participations`]);
      const again = translateApiMessage('The person is already registered.', 'de');
      await expect(bulk.getByRole('alert').getByRole('paragraph').allInnerTexts()).resolves.toEqual(firstnames.map((first) => `${first} ${lastname}: ${again}`));
      // Closed: the refusals go with the action they were about.
      await act(bulk, words.bulkRegister);
      await expect(bulk.getByRole('alert').count()).resolves.toBe(0);

      // Added to another group with a role no higher than the leader's own: one request.
      bulk = await choose('each');
      form = await act(bulk, words.bulkAdd);
      await expect(form.getByRole('combobox', { name: words.group, exact: true }).inputValue()).resolves.toBe('');
      await form.getByRole('combobox', { name: words.group, exact: true }).selectOption({ label: 'Biber' });
      expect(await form.getByRole('combobox', { name: words.role, exact: true }).locator('option').allInnerTexts()).toEqual([words.chooseRole, words.roleLeader, words.roleAssistant, words.roleMember]);
      await form.getByRole('combobox', { name: words.role, exact: true }).selectOption('assistant');
      expect(writes(await requestsDuring(leader, () => form.getByRole('button', { name: words.bulkAdd, exact: true }).click()))).toEqual(['POST /api/memberships']);
      await page.getByRole('status').filter({ hasText: words.addedToGroup(2, 'Biber') }).waitFor();
      for (const person of people) {
        expect((await membershipsOf(person)).filter((m) => m.group_id === ids.biber)).toEqual([expect.objectContaining({ role_type: 'assistant', start_on: today, end_on: null })]);
      }

      // Their memberships in Falken ended on a chosen day, asked first (naming how many, where, when): one request.
      bulk = await choose('each');
      form = await act(bulk, words.bulkEnd);
      await expect(form.getByLabel(words.endOn, { exact: true }).inputValue()).resolves.toBe(today);
      await form.getByLabel(words.endOn, { exact: true }).fill('2030-06-30');
      await form.getByText(words.membershipsToEnd(2)).waitFor();
      const question = words.confirmEndMemberships(2, 'Falken', dayIn('2030-06-30', 'de'));
      const declined = nextQuestion(page, false);
      expect(await requestsDuring(leader, () => form.getByRole('button', { name: words.bulkEnd, exact: true }).click())).toEqual([]);
      await expect(declined).resolves.toBe(question);
      const accepted = nextQuestion(page, true);
      expect(writes(await requestsDuring(leader, () => form.getByRole('button', { name: words.bulkEnd, exact: true }).click()))).toEqual(['PATCH /api/memberships']);
      await expect(accepted).resolves.toBe(question);
      await page.getByRole('status').filter({ hasText: words.membershipsEnded(2, dayIn('2030-06-30', 'de')) }).waitFor();
      for (const person of people) {
        const memberships = await membershipsOf(person);
        expect(memberships.find((m) => m.group_id === ids.falken)?.end_on).toBe('2030-06-30');
        expect(memberships.find((m) => m.group_id === ids.biber)?.end_on).toBeNull();
      }

      // Downloaded: the people list's files of just the chosen, Excel first.
      bulk = await choose('all');
      await act(bulk, words.bulkExport);
      const links = bulk.getByRole('link');
      expect(await links.allInnerTexts()).toEqual([words.downloadXlsx, words.downloadCsv]);
      expect(await links.first().getAttribute('href')).toBe(`/api/people?ids=${people.join(',')}&format=xlsx`);
      expect(await links.last().getAttribute('href')).toBe(`/api/people?ids=${people.join(',')}&format=csv`);
      await check(leader, 'members, download the chosen');
      files.push({ width, names: firstnames.map((first) => `${first},${lastname}`), xlsx: await fetched(links.first()), csv: await fetched(links.last()) });
      expect(leader.found).toEqual([]);
      await leader.close();
    }
    // The files of the chosen (GET /people's `format`), fetched in each width's page, checked last.
    for (const { width, names, xlsx, csv } of files) {
      expect(xlsx, `${width} px`).toMatchObject({ status: 200, type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', start: 'PK' });
      expect(xlsx.disposition).toContain(`filename="people-${today}.xlsx"`);
      expect(csv, `${width} px`).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/csv/) });
      expect(csv.disposition).toContain(`filename="people-${today}.csv"`);
      // The chosen two and no one else.
      expect(csv.lines).toHaveLength(3);
      for (const [index, name] of names.entries()) expect(csv.lines[index + 1]).toContain(name);
    }
  }, 240_000);

  it('adds a person with every field and a login, errors beside their fields and a warning about duplicates, in French', async () => {
    serverLogOnFailure(web);
    for (const width of ofThisPass(WIDTHS)) {
      const leader = await signIn('fr', width);
      const { page, words } = leader;
      await tour(leader);
      await visit(leader, `/groups/${ids.falken}`, 'Falken');
      const title = words.addPersonTo('Falken');
      expect(await view(leader, () => page.getByRole('link', { name: words.addPerson, exact: true }).click(), title)).toEqual([]);
      const form = page.getByRole('form', { name: title });
      const field = (label: string) => form.getByLabel(label, { exact: true });
      const add = form.getByRole('button', { name: words.addPerson, exact: true });

      // The roles a leader may grant (no administrator), a member by default; the yes/no questions unanswered.
      expect(await form.getByRole('combobox', { name: words.role, exact: true }).locator('option').allInnerTexts()).toEqual([words.chooseRole, words.roleLeader, words.roleAssistant, words.roleMember]);
      await expect(form.getByRole('combobox', { name: words.role, exact: true }).inputValue()).resolves.toBe('member');
      for (const question of [words.vegetarian, words.swimmer]) {
        for (const choice of [words.yes, words.no]) await expect(answer(form, question, choice).isChecked()).resolves.toBe(false);
      }
      // Nothing typed: the names are needed, said beside them in French, the first focused.
      expect(await requestsDuring(leader, () => add.click())).toEqual(['POST /api/people']);
      await expect.poll(() => messageBeside(form, words.firstname)).toBe(translateApiMessage('The firstname field is required.', 'fr'));
      await expect(messageBeside(form, words.lastname)).resolves.toBe(translateApiMessage('The lastname field is required.', 'fr'));
      await expect(page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).resolves.toBe('firstname');
      await check(leader, 'new person with errors');

      // Every field, a role, a login; the name and birthday of someone the leader sees already.
      const typed: [string, string][] = [
        [words.firstname, 'Nora'],
        [words.lastname, 'Nef'],
        [words.birthday, '2011-04-05'],
        [words.phonenumber, '026 300 00 00'],
        [words.phonenumberMobile, '079 200 00 00'],
        [words.street, 'Rue de Lausanne'],
        [words.housenumber, '12a'],
        [words.zip, '1700'],
        [words.city, 'Fribourg'],
        [words.genderId, '2'],
        [words.typeId, '1'],
      ];
      for (const [label, value] of typed) await field(label).fill(value);
      await answer(form, words.vegetarian, words.yes).check();
      await answer(form, words.swimmer, words.no).check();
      await form.getByRole('combobox', { name: words.role, exact: true }).selectOption('assistant');
      await form.getByLabel(words.giveLogin).check();
      await form.getByText(words.giveLoginHint).waitFor();
      await field(words.username).fill(`nora${width}`);
      await field(words.password).fill(`nora password ${width}`);
      // The warning comes before anything is written.
      expect(await requestsDuring(leader, () => add.click())).toEqual(['GET /api/people']);
      const warning = page.getByRole('alert').filter({ hasText: words.possibleDuplicates });
      await expect(warning.getByRole('listitem').allInnerTexts()).resolves.toContain(`Nora Nef · ${dayIn('2011-04-05', 'fr')}`);
      // The names are typed now: no message beside them says otherwise.
      await expect(messageBeside(form, words.firstname)).resolves.toBeNull();
      await expect(messageBeside(form, words.lastname)).resolves.toBeNull();
      await expect(warning.getByRole('link', { name: 'Nora Nef', exact: true }).evaluateAll((links) => links.map((link) => link.getAttribute('href')))).resolves.toContain(`#/people/${ids.nora}`);
      await check(leader, 'new person, a duplicate');
      // Added anyway: a login needs an e-mail address, said beside it.
      await warning.getByRole('button', { name: words.createAnyway, exact: true }).click();
      await expect.poll(() => messageBeside(form, words.email)).toBe(translateApiMessage('The email field is required.', 'fr'));
      await expect(warning.count()).resolves.toBe(0);
      const email = `nora.nef.${width}@example.org`;
      await field(words.email).fill(email);
      await add.click();
      await warning.waitFor();
      await view(leader, () => warning.getByRole('button', { name: words.createAnyway, exact: true }).click(), 'Nora Nef');
      await page.getByRole('status').filter({ hasText: words.personAdded('Nora Nef') }).waitFor();
      const nora = Number(/^#\/people\/(\d+)$/.exec(await page.evaluate(() => location.hash))![1]);
      expect(nora).not.toBe(ids.nora);
      const added = (await api('GET', `/people/${nora}?include=memberships`)).data;
      expect(added.person).toMatchObject({
        firstname: 'Nora',
        lastname: 'Nef',
        birthday: '2011-04-05',
        email,
        phonenumber: '026 300 00 00',
        phonenumber_mobile: '079 200 00 00',
        street: 'Rue de Lausanne',
        housenumber: '12a',
        zip: '1700',
        city: 'Fribourg',
        gender_id: 2,
        type_id: 1,
        is_vegetarian: true,
        can_swimm: false,
        username: `nora${width}`,
        has_login: true,
      });
      expect(added.memberships).toEqual([expect.objectContaining({ group_id: ids.falken, role_type: 'assistant', start_on: today, end_on: null })]);
      // The login works with the password typed.
      const login = await http(web.server.port, {
        method: 'POST',
        path: '/api/login',
        headers: { host: 'localhost', 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ username: `nora${width}`, password: `nora password ${width}` }),
      });
      expect(login.status).toBe(200);

      // The e-mail address of someone the leader sees (in any case): warned, and refused when added anyway.
      const firstname = width === 1280 ? 'Oskar' : 'Olga';
      expect(await visit(leader, `/groups/${ids.falken}/people/new`, title)).toEqual([]);
      await field(words.firstname).fill(firstname);
      await field(words.lastname).fill('Odermatt');
      await field(words.email).fill('Anna.Amsler@Example.org');
      expect(await requestsDuring(leader, () => add.click())).toEqual(['GET /api/people', 'GET /api/people']);
      await expect(warning.getByRole('listitem').allInnerTexts()).resolves.toEqual([`Anna Amsler · ${dayIn('2012-03-14', 'fr')} · anna.amsler@example.org`]);
      await warning.getByRole('button', { name: words.createAnyway, exact: true }).click();
      await expect.poll(() => messageBeside(form, words.email)).toBe(translateApiMessage('The email has already been taken.', 'fr'));
      await check(leader, 'new person, e-mail taken');
      await field(words.email).fill('');
      await view(leader, () => add.click(), `${firstname} Odermatt`);
      const oskar = Number(/^#\/people\/(\d+)$/.exec(await page.evaluate(() => location.hash))![1]);
      const plain = (await api('GET', `/people/${oskar}?include=memberships`)).data;
      // Unanswered questions are not answered for the person: the API's defaults stand.
      expect(plain.person).toMatchObject({ firstname, lastname: 'Odermatt', birthday: null, email: null, phonenumber: null, city: null, gender_id: null, is_vegetarian: false, can_swimm: false, has_login: false });
      expect(plain.memberships).toEqual([expect.objectContaining({ group_id: ids.falken, role_type: 'member', start_on: today })]);
      expect(leader.found).toEqual([]);
      await leader.close();
    }
  }, 180_000);

  it('edits a person, their memberships and guardians, and shows their registrations and history, in English', async () => {
    serverLogOnFailure(web);
    for (const width of ofThisPass(WIDTHS)) {
      const leader = await signIn('en', width);
      const { page, words } = leader;
      await tour(leader);
      const [id, firstname, lastname] = width === 1280 ? [ids.tom, 'Tom', 'Tanner'] : [ids.tia, 'Tia', 'Tobler'];
      const name = `${firstname} ${lastname}`;

      // One request for the whole page.
      expect(await visit(leader, `/people/${id}`, name)).toEqual([`GET /api/people/${id}`]);
      expect(new URL(leader.requests.at(-1)!.url()).searchParams.get('include')).toBe('memberships,guardians,wards,participations,can');
      await check(leader, 'person');
      // A leader cannot give a login here (only an administrator sets a password): nothing is offered that must fail.
      await expect(page.getByRole('heading', { name: words.giveLogin }).count()).resolves.toBe(0);

      // Editing: only what changed, from the version read.
      const profile = page.getByRole('form', { name });
      const field = (label: string) => profile.getByLabel(label, { exact: true });
      await field(words.phonenumber).fill('031 999 88 77');
      await field(words.birthday).fill('2012-11-11');
      await field(words.street).fill('Bahnhofstrasse');
      await answer(profile, words.vegetarian, words.yes).check();
      expect(await requestsDuring(leader, () => profile.getByRole('button', { name: words.save, exact: true }).click())).toEqual([`PATCH /api/people/${id}`]);
      await profile.getByRole('status').filter({ hasText: words.saved }).waitFor();
      const patch = leader.requests.filter((request) => request.method() === 'PATCH').at(-1)!;
      expect(await patch.headerValue('if-match')).toBeTruthy();
      // Only what changed was sent: the change record holds exactly those fields.
      expect(await lastChangeOf(id)).toEqual(['birthday', 'is_vegetarian', 'phonenumber', 'street']);
      expect((await api('GET', `/people/${id}`)).data.person).toMatchObject({ birthday: '2012-11-11', phonenumber: '031 999 88 77', street: 'Bahnhofstrasse', is_vegetarian: true, city: 'Bern' });

      // Someone else changes the city meanwhile: the leader's change is said, not written over it.
      await api('PATCH', `/people/${id}`, { city: 'Spiez' });
      await field(words.city).fill('Thun');
      await field(words.phonenumberMobile).fill('079 123 45 67');
      await profile.getByRole('button', { name: words.save, exact: true }).click();
      const conflict = page.getByRole('alert').filter({ hasText: words.changedMeanwhile });
      await conflict.waitFor();
      await expect(conflict.getByRole('listitem').allInnerTexts()).resolves.toEqual([`${words.phonenumberMobile}: 079 123 45 67`, `${words.city}: Thun`]);
      await expect.poll(() => field(words.city).inputValue()).toBe('Spiez');
      await expect(field(words.phonenumberMobile).inputValue()).resolves.toBe('');
      expect((await api('GET', `/people/${id}`)).data.person).toMatchObject({ city: 'Spiez', phonenumber_mobile: null });
      await check(leader, 'person after a conflict');

      // A membership in another group, with the group picker (nothing preselected).
      const memberships = card(page, words.memberships);
      const group = memberships.getByRole('combobox', { name: words.group, exact: true });
      await expect(group.inputValue()).resolves.toBe('');
      expect(await group.locator('option').allInnerTexts()).toEqual([words.chooseGroup, 'Biber', 'Falken', 'Wölfe']);
      await group.selectOption({ label: 'Biber' });
      expect(await memberships.getByRole('combobox', { name: words.role, exact: true }).locator('option').allInnerTexts()).toEqual([words.chooseRole, words.roleLeader, words.roleAssistant, words.roleMember]);
      await memberships.getByRole('combobox', { name: words.role, exact: true }).selectOption('assistant');
      expect(await requestsDuring(leader, () => memberships.getByRole('button', { name: words.addMembership, exact: true }).click())).toEqual([`GET /api/people/${id}`, 'POST /api/memberships']);
      await page.getByRole('status').filter({ hasText: words.membershipAdded(firstname, 'Biber') }).waitFor();
      expect((await membershipsOf(id)).map(({ group_id, role_type, end_on }) => ({ group_id, role_type, end_on }))).toEqual([
        { group_id: ids.woelfe, role_type: 'member', end_on: null },
        { group_id: ids.biber, role_type: 'assistant', end_on: null },
      ]);
      // Ended on a chosen day (today unless changed), asked first.
      const wolves = memberships.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Wölfe', exact: true }) });
      await wolves.getByRole('button', { name: words.endMembership, exact: true }).click();
      await expect(wolves.getByLabel(words.endOn, { exact: true }).inputValue()).resolves.toBe(today);
      await wolves.getByLabel(words.endOn, { exact: true }).fill('2031-12-31');
      await check(leader, 'person, ending a membership');
      const ending = nextQuestion(page, true);
      expect(await requestsDuring(leader, () => wolves.getByRole('button', { name: words.endMembership, exact: true }).click())).toEqual([
        `GET /api/people/${id}`,
        expect.stringMatching(/^PATCH \/api\/memberships\/\d+$/),
      ]);
      await expect(ending).resolves.toBe(words.confirmEndMembership(firstname, 'Wölfe', dayIn('2031-12-31', 'en')));
      await page.getByRole('status').filter({ hasText: words.membershipEnded(firstname, 'Wölfe') }).waitFor();
      expect((await membershipsOf(id)).find((m) => m.group_id === ids.woelfe)?.end_on).toBe('2031-12-31');
      // A mistaken one deleted, asked first; "no" keeps it.
      const beavers = memberships.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Biber', exact: true }) });
      const question = words.confirmDeleteMembership(firstname, 'Biber', words.roleAssistant);
      const kept = nextQuestion(page, false);
      expect(await requestsDuring(leader, () => beavers.getByRole('button', { name: words.deleteMembership, exact: true }).click())).toEqual([]);
      await expect(kept).resolves.toBe(question);
      const deleted = nextQuestion(page, true);
      expect(await requestsDuring(leader, () => beavers.getByRole('button', { name: words.deleteMembership, exact: true }).click())).toEqual([
        expect.stringMatching(/^DELETE \/api\/memberships\/\d+$/),
        `GET /api/people/${id}`,
      ]);
      await expect(deleted).resolves.toBe(question);
      await page.getByRole('status').filter({ hasText: words.membershipDeleted(firstname, 'Biber') }).waitFor();
      expect((await membershipsOf(id)).map((m) => m.group_id)).toEqual([ids.woelfe]);

      // Guardians: someone found by name, linked.
      const guardians = card(page, words.guardians);
      const ways = guardians.getByRole('group', { name: words.addGuardian, exact: true });
      await ways.getByRole('button', { name: words.linkExistingGuardian, exact: true }).click();
      await guardians.getByLabel(words.searchPeople, { exact: true }).fill('Pfister');
      expect(await requestsDuring(leader, () => guardians.getByRole('button', { name: words.search, exact: true }).click())).toEqual(['GET /api/people']);
      await check(leader, 'person, finding a guardian');
      await guardians.getByRole('button', { name: words.linkAsGuardian('Pia Pfister'), exact: true }).click();
      await page.getByRole('status').filter({ hasText: words.guardianLinked('Pia Pfister', firstname) }).waitFor();
      expect(await guardiansOf(id)).toEqual(['Pia Pfister']);
      // The page reads the person again and lists her: the card's buttons move down, so the next
      // click waits for that, as a user's eye would (a click during the move can miss).
      await guardians.getByRole('link', { name: 'Pia Pfister', exact: true }).waitFor();
      // By e-mail address: an unknown one said beside the field; Ugo's linked.
      await ways.getByRole('button', { name: words.linkGuardianByEmail, exact: true }).click();
      const byEmail = guardians.getByRole('textbox', { name: words.email, exact: true });
      await byEmail.fill('nobody@example.org');
      await guardians.getByRole('button', { name: words.linkGuardianByEmail, exact: true }).last().click();
      await expect.poll(() => messageBeside(guardians, words.email)).toBe(words.noGuardianWithEmail);
      await byEmail.fill('ugo.pfister@example.org');
      await guardians.getByRole('button', { name: words.linkGuardianByEmail, exact: true }).last().click();
      await page.getByRole('status').filter({ hasText: words.guardianLinked('Ugo Pfister', firstname) }).waitFor();
      expect(await guardiansOf(id)).toEqual(['Pia Pfister', 'Ugo Pfister']);
      await guardians.getByRole('link', { name: 'Ugo Pfister', exact: true }).waitFor();
      // A new parent, created and linked in one step, without a membership of their own.
      await ways.getByRole('button', { name: words.createGuardian, exact: true }).click();
      await guardians.getByText(words.createGuardianHint(firstname)).waitFor();
      await expect(guardians.getByLabel(words.lastname, { exact: true }).inputValue()).resolves.toBe(lastname);
      await guardians.getByLabel(words.firstname, { exact: true }).fill('Vera');
      await guardians.getByLabel(words.email, { exact: true }).fill(`vera.${width}@example.org`);
      await guardians.getByLabel(words.phonenumberMobile, { exact: true }).fill('079 888 77 66');
      await check(leader, 'person, a new parent');
      expect(await requestsDuring(leader, () => guardians.getByRole('button', { name: words.createGuardian, exact: true }).last().click())).toEqual(['GET /api/people/' + id, 'POST /api/people']);
      await page.getByRole('status').filter({ hasText: words.guardianLinked(`Vera ${lastname}`, firstname) }).waitFor();
      const withVera = (await api('GET', `/people/${id}?include=guardians`)).data.guardians as { id: number; firstname: string; email: string; phonenumber_mobile: string }[];
      const vera = withVera.find((g) => g.firstname === 'Vera')!;
      expect(vera).toMatchObject({ email: `vera.${width}@example.org`, phonenumber_mobile: '079 888 77 66' });
      expect(await membershipsOf(vera.id)).toEqual([]);
      // Unlinked, asked first.
      const pia = guardians.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Pia Pfister', exact: true }) });
      const unlinking = nextQuestion(page, true);
      await pia.getByRole('button', { name: words.unlinkGuardian, exact: true }).click();
      await expect(unlinking).resolves.toBe(words.confirmUnlinkGuardian('Pia Pfister', firstname));
      await page.getByRole('status').filter({ hasText: words.guardianUnlinked('Pia Pfister') }).waitFor();
      expect(await guardiansOf(id)).toEqual(['Ugo Pfister', `Vera ${lastname}`]);

      // The registrations, with the event's name and state.
      const registrations = card(page, words.participations);
      // In the tenant's time (Zurich), though the browser is in New York.
      await expect(registrations.getByRole('listitem').allInnerTexts()).resolves.toEqual([`Herbstlager ${formatMoment('2027-10-10T07:00:00Z', 'en', ZONE)} · ${words.accepted}`]);
      await expect(registrations.getByRole('link', { name: 'Herbstlager', exact: true }).getAttribute('href')).resolves.toBe(`#/events/${ids.camp}`);
      // The history, read when opened: the changes, with the fields they changed.
      expect(await requestsDuring(leader, () => page.getByRole('heading', { name: words.history, exact: true }).click())).toEqual([`GET /api/people/${id}/history`]);
      const history = page.locator('details', { has: page.getByRole('heading', { name: words.history, exact: true }) }).getByRole('listitem');
      await expect(history.allInnerTexts()).resolves.toContainEqual(expect.stringMatching(new RegExp(`^.* · ${words.changeOf('person', 'updated')} · Lea Lindt · .*${words.street}`)));
      await check(leader, 'person after the changes');

      // Someone with a login: the leader may not change their address, and is told why beside it.
      await visit(leader, `/people/${ids.lou}`, 'Lou Lehmann');
      const lous = page.getByRole('form', { name: 'Lou Lehmann' });
      const address = lous.getByLabel(words.email, { exact: true });
      await expect(address.inputValue()).resolves.toBe('lou@example.org');
      await expect(address.getAttribute('readonly')).resolves.not.toBeNull();
      await expect(messageBeside(lous, words.email)).resolves.toBe(words.loginFieldsLocked);
      await lous.getByLabel(words.city, { exact: true }).fill(`Basel ${width}`);
      expect(await requestsDuring(leader, () => lous.getByRole('button', { name: words.save, exact: true }).click())).toEqual([`PATCH /api/people/${ids.lou}`]);
      expect(await lastChangeOf(ids.lou)).toEqual(['city']);
      expect((await api('GET', `/people/${ids.lou}`)).data.person).toMatchObject({ email: 'lou@example.org', city: `Basel ${width}` });
      await check(leader, 'person with a login');
      expect(leader.found).toEqual([]);
      await leader.close();
    }
  }, 180_000);
});
