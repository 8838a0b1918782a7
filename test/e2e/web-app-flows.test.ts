import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { http, type ServerProcess } from '../helpers/processes.js';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { ARTIFACTS, seriousViolations, startWebServer, type WebServer } from '../helpers/web-server.js';

/**
 * The web app's main journeys in Debian's Chromium against the built server: a leader builds a
 * patrol, a member and a camp; a parent registers two wards for the one place; the leader cancels
 * one and sees the other promoted; the summary counts right. Every page passes axe-core's check.
 */
describe.runIf(browserAvailable)('the web app: a leader and a parent', () => {
  let web: WebServer;
  let server: ServerProcess;
  let browser: Browser;
  let admin: string;
  let root: number;

  const api = (method: string, path: string, body?: object, token?: string) => web.api(method, path, body, token);
  const person = async (firstname: string, lastname: string, groupId: number, role: string, login?: string) => {
    const account = login ? { username: login, password: `${login} password 1`, email: `${login}@example.com` } : {};
    const answer = await api('POST', '/people', { firstname, lastname, membership: { group_id: groupId, role_type: role }, ...account });
    if (!answer?.data?.person) throw new Error(JSON.stringify(answer));
    return answer.data.person.id as number;
  };

  beforeAll(async () => {
    web = await startWebServer('flows', { RATE_LIMIT_AUTHENTICATED: '100000' });
    ({ server, admin } = web);
    root = (await api('GET', '/groups?limit=1')).data.groups[0].id;
    await person('Lea', 'Leader', root, 'leader', 'leader');
    await person('Pat', 'Parent', root, 'member', 'parent');
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
  });

  /** A logged-in page that records script errors and content-policy violations. */
  const loggedIn = async (username: string, width = 1280): Promise<{ page: Page; problems: string[] }> => {
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    // Refusals the journey provokes on purpose are answers, not problems; a policy violation is one.
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (403|404|422)/.test(message.text())) problems.push(message.text());
    });
    await page.goto(`http://127.0.0.1:${server.port}/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(`${username} password 1`);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'What is next for us' }).waitFor();
    return { page, problems };
  };
  /** axe-core in the page (evaluated by the test, which the page's content policy does not govern). */
  const accessible = async (page: Page, name: string) => expect(await seriousViolations(page), name).toEqual([]);

  it('runs the camp from the patrol to the promoted ward', async () => {
    // A page that waits forever shows no reason; the server's log of refused or failed requests does.
    onTestFailed(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the last lines still in the pipe
      const troubles = server.output().split('\n').filter((line) => /"status":[45]\d\d|"level":[456]0/.test(line));
      console.error(`server log, requests not answered with 2xx or 3xx, and warnings:\n${troubles.join('\n') || '(none)'}`);
    });
    // The leader: a patrol, a member in it, a camp with one place.
    const leader = await loggedIn('leader');
    const lp = leader.page;
    await accessible(lp, 'profile');
    await lp.getByRole('link', { name: 'Groups' }).click();
    await lp.getByRole('heading', { name: 'Groups' }).waitFor();
    await lp.getByLabel('Name').fill('Foxes');
    await lp.getByRole('button', { name: 'Create' }).click();
    await lp.getByRole('link', { name: 'Foxes' }).waitFor();
    await accessible(lp, 'groups');
    await lp.screenshot({ path: join(ARTIFACTS, 'groups-1280.png') });
    await lp.getByRole('link', { name: 'Foxes' }).click();
    await lp.getByRole('heading', { name: 'Foxes' }).waitFor();
    await lp.getByRole('link', { name: 'Add a person' }).click();
    const addPerson = lp.locator('form', { has: lp.getByRole('heading', { name: 'Add a person to Foxes' }) });
    await addPerson.getByLabel('First name').fill('Mia');
    await addPerson.getByLabel('Last name').fill('Member');
    // A leader may not grant more than they hold: no Administrator among the roles offered.
    await expect(addPerson.getByLabel('Role').locator('option').allInnerTexts()).resolves.not.toContain('Administrator');
    await addPerson.getByRole('button', { name: 'Add a person' }).click();
    await lp.getByRole('heading', { name: 'Mia Member' }).waitFor();
    await lp.getByRole('link', { name: 'Foxes' }).first().click();
    await lp.getByRole('link', { name: 'Member Mia' }).waitFor();
    await accessible(lp, 'group');
    await lp.getByRole('link', { name: 'New event' }).click();
    const newEvent = lp.locator('form', { has: lp.getByRole('heading', { name: 'New event' }) });
    await newEvent.getByLabel('Name').fill('Summer camp');
    await newEvent.getByLabel('Starts').fill('2027-07-01T09:00');
    await newEvent.getByLabel('Ends').fill('2027-07-08T17:00');
    await newEvent.getByLabel('Places').fill('1');
    // A refusal shows beside its field, focused: here an end before the start.
    await newEvent.getByLabel('Ends').fill('2027-06-30T17:00');
    await newEvent.getByRole('button', { name: 'Create' }).click();
    await newEvent.getByText('The ends at field must be a date after or equal to starts at.').waitFor();
    await expect(newEvent.getByLabel('Ends').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(lp.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).resolves.toBe('ends_at');
    await newEvent.getByLabel('Ends').fill('2027-07-08T17:00');
    await newEvent.getByRole('button', { name: 'Create' }).click();
    await lp.getByRole('heading', { name: 'Summer camp' }).waitFor();
    const eventUrl = lp.url();

    const patrol = (await api('GET', '/groups?q=Foxes')).data.groups[0].id as number;
    const camp = (await api('GET', `/events?group_id=${patrol}`)).data.events[0];
    expect(camp).toMatchObject({ name: 'Summer camp', capacity: 1, starts_at: '2027-07-01T09:00:00.000000Z' });
    expect((await api('GET', `/people?group_id=${patrol}`)).data.people.map((p: { firstname: string }) => p.firstname)).toEqual(['Mia']);

    // Two wards in the patrol, both of the parent's.
    const parentId = (await api('GET', '/people?q=Parent')).data.people[0].id as number;
    for (const [first, swims] of [['Kim', false], ['Kai', true]] as const) {
      const ward = await person(first, 'Kid', patrol, 'member');
      await api('PATCH', `/people/${ward}`, { can_swimm: swims, is_vegetarian: first === 'Kim' });
      await api('POST', `/people/${ward}/guardians`, { guardian_id: parentId });
    }

    // The parent registers both: one place, so the second waits.
    const parent = await loggedIn('parent', 360);
    const pp = parent.page;
    // The home page lists the camp as open to both wards: one tap to it, not a walk through the tree.
    await accessible(pp, 'home (parent)');
    await pp.getByRole('link', { name: /^Register: (Kim, Kai|Kai, Kim)$/ }).click();
    await pp.getByRole('heading', { name: 'Summer camp' }).waitFor();
    await pp.getByRole('link', { name: 'Register: Kim Kid' }).click();
    await pp.getByLabel('Notes for the leaders').fill('Nut allergy');
    await accessible(pp, 'register (parent)');
    await pp.screenshot({ path: join(ARTIFACTS, 'register-360.png'), fullPage: true });
    await pp.getByRole('button', { name: 'Register: Kim' }).click();
    await pp.getByText('Kim: Accepted').waitFor();
    // Kai's swimming answer is corrected in the same step.
    await pp.getByRole('link', { name: 'Register: Kai Kid' }).click();
    await expect(pp.getByRole('group', { name: 'Can swim?' }).getByLabel('Yes').isChecked()).resolves.toBe(true);
    await pp.getByRole('group', { name: 'Can swim?' }).getByLabel('No').check();
    await pp.getByRole('button', { name: 'Register: Kai' }).click();
    await pp.getByText('Kai: Waiting list (place 1 on the waiting list)').waitFor();
    const kids = (await api('GET', `/people?group_id=${patrol}&q=Kid`)).data.people as { id: number; firstname: string; can_swimm: boolean }[];
    expect(kids.find((kid) => kid.firstname === 'Kai')?.can_swimm).toBe(false);
    const registered = (await api('GET', `/events/${camp.id}/participations`)).data.participations as { person: { firstname: string }; notes: string | null }[];
    expect(registered.map((p) => [p.person.firstname, p.notes])).toEqual([['Kim', 'Nut allergy'], ['Kai', null]]);
    await accessible(pp, 'event (parent)');
    await pp.screenshot({ path: join(ARTIFACTS, 'event-360.png'), fullPage: true });
    await pp.getByRole('link', { name: 'My wards' }).click();
    // The event's name arrives with its own request (EventLink shows "#<id>" until then).
    const kaisRegistrations = pp.getByRole('list', { name: 'Registrations: Kai' });
    await kaisRegistrations.filter({ hasText: /Summer camp .* · Waiting list \(place 1 on the waiting list\)/ }).waitFor();
    await accessible(pp, 'wards');
    await pp.screenshot({ path: join(ARTIFACTS, 'wards-360.png'), fullPage: true });

    // The leader cancels Kim and sees Kai promoted; the summary counts right.
    await lp.goto(`http://127.0.0.1:${server.port}/#/groups`);
    await lp.goto(eventUrl);
    // The managers' list shows each registration's notes and the kitchen's and lifeguard's answers.
    await expect(lp.locator('tr', { hasText: 'Kim Kid' }).innerText()).resolves.toMatch(/Nut allergy\s+Yes\s+No/);
    // Cancelling is final: the leader is asked first, and a "no" changes nothing.
    lp.once('dialog', (dialog) => void dialog.dismiss());
    await lp.getByLabel('State: Kim Kid').selectOption('cancelled');
    await expect.poll(() => lp.getByLabel('State: Kim Kid').inputValue()).toBe('accepted');
    lp.once('dialog', (dialog) => void dialog.accept());
    await lp.getByLabel('State: Kim Kid').selectOption('cancelled');
    await expect.poll(() => lp.getByLabel('State: Kai Kid').inputValue(), { timeout: 10_000 }).toBe('accepted');
    const summary = lp.getByTestId('summary');
    await expect.poll(() => summary.innerText()).toMatch(/Accepted\s+1\s+Waiting list\s+0\s+Pending\s+0\s+Cancelled\s+1\s+Vegetarians\s+0\s+Non-swimmers\s+Kai Kid/);
    await expect.poll(() => lp.getByTestId('places').innerText()).toBe('1 of 1 places taken');
    await accessible(lp, 'event (leader)');
    await lp.screenshot({ path: join(ARTIFACTS, 'event-1280.png'), fullPage: true });
    // The CSV download, as a manager gets it.
    const [download] = await Promise.all([lp.waitForEvent('download'), lp.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`event-${camp.id}-participants.csv`);

    // The attendance of the day: ticked on the list, saved in one request.
    const attendance = lp.locator('section', { has: lp.getByRole('heading', { name: 'Attendance' }) });
    await attendance.getByLabel('Kai Kid').check();
    await attendance.getByRole('button', { name: 'Save attendance' }).click();
    await lp.getByText('Attendance saved.').waitFor();
    const afterRoll = (await api('GET', `/events/${camp.id}/participations`)).data.participations as { person: { firstname: string }; attended: boolean | null }[];
    expect(afterRoll.find((p) => p.person.firstname === 'Kai')?.attended).toBe(true);

    // A hike that needs approval: the leader approves both pending registrations in one go.
    const hike = (await api('POST', '/events', { group_id: patrol, name: 'Hike', starts_at: '2027-05-01T08:00:00Z', ends_at: '2027-05-01T17:00:00Z', requires_approval: true })).data.event.id as number;
    const pendingKids = kids.map((kid) => kid.id);
    expect((await api('POST', `/events/${hike}/participations`, { person_ids: pendingKids })).data.participations.map((p: { state: string }) => p.state)).toEqual(['pending', 'pending']);
    await lp.goto(`http://127.0.0.1:${server.port}/#/events/${hike}`);
    const approvals = lp.locator('section', { has: lp.getByRole('heading', { name: 'Waiting for approval' }) });
    await approvals.getByLabel('Kim Kid').check();
    await approvals.getByLabel('Kai Kid').check();
    await accessible(lp, 'event approvals (leader)');
    await approvals.getByRole('button', { name: 'Approve the chosen' }).click();
    await lp.getByText('2 approved.').waitFor();
    const decided = (await api('GET', `/events/${hike}/participations`)).data.participations as { state: string }[];
    expect(decided.map((p) => p.state)).toEqual(['accepted', 'accepted']);

    // Several members at once, in a role: those registered already are not offered.
    await lp.getByText('Register members').click();
    const picker = lp.locator('details', { has: lp.getByRole('heading', { name: 'Register members' }) });
    await picker.getByLabel('Mia Member').waitFor();
    await expect(picker.getByLabel('Kim Kid').count()).resolves.toBe(0);
    await picker.getByLabel('Mia Member').check();
    await picker.getByLabel('As').selectOption('helper');
    await picker.getByRole('button', { name: 'Register the chosen (1)' }).click();
    await lp.getByText('1 registered.').waitFor();
    const withMia = (await api('GET', `/events/${hike}/participations`)).data.participations as { person: { firstname: string }; role: string; state: string }[];
    expect(withMia.find((p) => p.person.firstname === 'Mia')).toMatchObject({ role: 'helper', state: 'pending' });

    // Paging through the members (50 a page), a search among them, and Mia's membership ended.
    for (let i = 1; i <= 50; i += 1) await person(`Extra${String(i).padStart(2, '0')}`, 'Zed', patrol, 'member');
    await lp.getByRole('link', { name: 'Groups' }).click();
    await lp.getByRole('link', { name: 'Foxes' }).click();
    const members = lp.getByRole('table').locator('tbody tr');
    await expect.poll(() => members.count()).toBe(50);
    await lp.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => members.count()).toBe(53);
    await expect(lp.getByRole('button', { name: 'Show more' }).count()).resolves.toBe(0);
    await lp.screenshot({ path: join(ARTIFACTS, 'group-1280.png') });
    await lp.getByRole('searchbox', { name: 'Search' }).fill('kai');
    await lp.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => members.allInnerTexts()).toEqual([expect.stringContaining('Kid Kai')]);
    await lp.getByRole('searchbox', { name: 'Search' }).fill('');
    await lp.getByRole('button', { name: 'Search' }).click();
    await lp.getByRole('link', { name: 'Member Mia' }).click();
    await lp.getByRole('heading', { name: 'Mia Member' }).waitFor();
    await accessible(lp, 'person');
    // Ending asks for the day (today by default), then asks again naming what it does.
    await lp.getByRole('button', { name: 'End membership' }).click();
    const lastDay = lp.getByLabel('Last day of the membership');
    await expect(lastDay.inputValue()).resolves.toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await lastDay.fill('2099-12-31');
    const question = new Promise<string>((resolve) => lp.once('dialog', (dialog) => { resolve(dialog.message()); void dialog.accept(); }));
    await lp.getByRole('button', { name: 'End membership' }).click();
    await expect(question).resolves.toBe("End Mia's membership in Foxes on 31 Dec 2099?");
    await lp.getByText("Mia's membership in Foxes ends as chosen.").waitFor();
    await expect.poll(() => lp.getByRole('button', { name: 'End membership' }).count()).toBe(0);
    const mia = (await api('GET', '/people?q=Mia')).data.people[0].id as number;
    expect((await api('GET', `/people/${mia}/memberships`)).data.memberships[0].end_on).toBe('2099-12-31');

    // The tree: a second patrol; the first renamed and moved below it.
    await lp.getByRole('link', { name: 'Groups' }).click();
    // The person's form (First name, Last name) is gone once the tree's form is there.
    await lp.getByLabel('Parent group').waitFor();
    await lp.getByLabel('Name', { exact: true }).fill('Wolves');
    // With more than one group to choose from, the parent is a choice: nothing preselected.
    await expect(lp.getByLabel('Parent group').inputValue()).resolves.toBe('');
    await lp.getByLabel('Parent group').selectOption({ index: 1 });
    await lp.getByLabel('Kind').fill('patrol');
    await lp.getByRole('button', { name: 'Create' }).click();
    await lp.getByRole('link', { name: 'Wolves' }).waitFor();
    await lp.getByRole('link', { name: 'Foxes' }).click();
    await lp.getByText('Settings').click();
    const settings = lp.locator('form', { has: lp.getByRole('button', { name: 'Save' }) });
    await settings.getByLabel('Name').fill('Fox patrol');
    await settings.getByLabel('Description').fill('Tuesdays at the hut.');
    await settings.getByRole('button', { name: 'Save' }).click();
    await lp.getByRole('heading', { name: 'Fox patrol' }).waitFor();
    await lp.getByText('Tuesdays at the hut.').waitFor();
    // No target is preselected, and the move asks first.
    await expect(lp.getByLabel('Move below').inputValue()).resolves.toBe('');
    await lp.getByLabel('Move below').selectOption({ label: 'Wolves' });
    const moveQuestion = new Promise<string>((resolve) => lp.once('dialog', (dialog) => { resolve(dialog.message()); void dialog.accept(); }));
    await lp.getByRole('button', { name: 'Move' }).click();
    await expect(moveQuestion).resolves.toBe('Move Fox patrol with everything in it below Wolves?');
    const wolves = (await api('GET', '/groups?q=Wolves')).data.groups[0].id as number;
    await expect.poll(async () => (await api('GET', `/groups/${patrol}`)).data.group).toMatchObject({ name: 'Fox patrol', parent_id: wolves });
    await lp.getByRole('link', { name: 'Wolves' }).waitFor();
    expect((await api('GET', `/groups/${wolves}`)).data.group).toMatchObject({ kind: 'patrol' });
    expect((await api('GET', `/groups/${patrol}`)).data.group).toMatchObject({ description: 'Tuesdays at the hut.' });

    // Wolves cannot go while Fox patrol is below it: the API's reason, beside the button.
    await lp.getByRole('link', { name: 'Wolves' }).click();
    await lp.getByText('Settings').click();
    lp.once('dialog', (dialog) => void dialog.accept());
    await lp.getByRole('button', { name: 'Delete group' }).click();
    await lp.getByText('Not deleted: The group still has subgroups.').waitFor();
    expect((await api('GET', `/groups/${wolves}`)).data.group.name).toBe('Wolves');

    // The camp is called off: one action, asked first, naming what it ends.
    await lp.goto(eventUrl);
    const callOff = new Promise<string>((resolve) => lp.once('dialog', (dialog) => { resolve(dialog.message()); void dialog.accept(); }));
    await lp.getByRole('button', { name: 'Call off' }).click();
    await expect(callOff).resolves.toBe('Call off Summer camp? 1 registration is cancelled and the event is deleted. This cannot be undone.');
    await lp.getByText('Summer camp is called off.').waitFor();
    const gone = await http(server.port, { path: `/api/events/${camp.id}`, headers: { host: 'localhost', accept: 'application/json', authorization: `Bearer ${admin}` } });
    expect(gone.status).toBe(404);
    expect(leader.problems).toEqual([]);
    expect(parent.problems).toEqual([]);
  }, 120_000);
});
