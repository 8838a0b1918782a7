import { join } from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { ServerProcess } from '../helpers/processes.js';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { ARTIFACTS, seriousViolations, startWebServer, type WebServer } from '../helpers/web-server.js';


/**
 * A parent on a phone (360 px) in Debian's Chromium against the built server: corrects their own
 * profile (told what is wrong beside the field, in German), then their ward's swimming answer,
 * first refused because someone else changed the ward meanwhile. Outcomes are read back through
 * the API; both pages pass axe-core's check and never scroll sideways.
 */
describe.runIf(browserAvailable)('the web app: my profile and my ward\'s', () => {
  let web: WebServer;
  let server: ServerProcess;
  let browser: Browser;
  let base: string;
  let parentId: number;
  let wardId: number;

  const api = (method: string, path: string, body?: object) => web.api(method, path, body);
  const person = async (firstname: string, lastname: string, groupId: number, login?: string) => {
    const account = login ? { username: login, password: `${login} password 1`, email: `${login}@example.com` } : {};
    const answer = await api('POST', '/people', { firstname, lastname, membership: { group_id: groupId, role_type: 'member' }, ...account });
    if (!answer?.data?.person) throw new Error(JSON.stringify(answer));
    return answer.data.person.id as number;
  };

  beforeAll(async () => {
    web = await startWebServer('profiles', { RATE_LIMIT_AUTHENTICATED: '100000' });
    ({ server, base } = web);
    const root = (await api('GET', '/groups?limit=1')).data.groups[0].id as number;
    parentId = await person('Pat', 'Parent', root, 'parent');
    wardId = await person('Mia', 'Kid', root);
    await api('PATCH', `/people/${wardId}`, { birthday: '2016-04-02', can_swimm: false });
    await api('POST', `/people/${wardId}/guardians`, { guardian_id: parentId });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
  });

  /** The parent signed in on a phone; script errors, policy violations and the API requests recorded. */
  const parentOnPhone = async (): Promise<{ page: Page; problems: string[]; requests: Request[] }> => {
    const context = await browser.newContext({ viewport: { width: 360, height: 640 }, locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: Request[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    // Refusals the journey provokes on purpose are answers, not problems; a policy violation is one.
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (412|422)/.test(message.text())) problems.push(message.text());
    });
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/') && !request.url().endsWith('/api/csrf-cookie')) requests.push(request);
    });
    await page.goto(`${base}/`);
    await page.getByLabel('Username').fill('parent');
    await page.getByLabel('Password').fill('parent password 1');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'What is next for us' }).waitFor();
    return { page, problems, requests };
  };
  const named = (requests: Request[]) => requests.map((request) => `${request.method()} ${new URL(request.url()).pathname}`);
  /** axe-core in the page (evaluated by the test, which the page's content policy does not govern). */
  const accessible = async (page: Page, name: string) => expect(await seriousViolations(page), name).toEqual([]);
  /** No sideways scrolling, and the form's inputs as wide as the form. */
  const fitsThePhone = async (page: Page, form: ReturnType<Page['locator']>, name: string) => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), name).toBe(true);
    const inputs = await form.locator('input:not([type=radio])').evaluateAll((elements) =>
      elements.map((element) => {
        const box = element.getBoundingClientRect();
        const row = element.closest('form')!.getBoundingClientRect();
        return { name: (element as HTMLInputElement).name, share: box.width / row.width };
      }),
    );
    expect(inputs.length, name).toBeGreaterThan(10);
    for (const input of inputs) expect(input.share, `${name}: ${input.name}`).toBeGreaterThan(0.85);
  };
  /** The text the field's aria-describedby points to: its message, beside it. */
  const messageBeside = (page: Page, label: string) =>
    page.getByLabel(label, { exact: true }).evaluate((input) => {
      const id = input.getAttribute('aria-describedby');
      return id ? (document.getElementById(id)?.textContent ?? null) : null;
    });
  const serverLogOnFailure = () =>
    onTestFailed(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the last lines still in the pipe
      const troubles = server.output().split('\n').filter((line) => /"status":[45]\d\d|"level":[456]0/.test(line));
      console.error(`server log, requests not answered with 2xx or 3xx, and warnings:\n${troubles.join('\n') || '(none)'}`);
    });

  it('lets a parent correct their own profile, each refusal beside its field in German, and confirms the save', async () => {
    serverLogOnFailure();
    const { page, problems, requests } = await parentOnPhone();
    const before = requests.length;
    await page.goto(`${base}/#/profile`);
    const heading = page.getByRole('heading', { name: 'My profile', level: 1 });
    await heading.waitFor();
    await page.waitForLoadState('networkidle');
    expect(named(requests.slice(before))).toEqual(['GET /api/user']);
    const form = page.locator('form', { has: heading });
    // All 17 fields of GET /user: those PATCH /user takes as inputs, the others as text.
    await expect(page.getByLabel('First name', { exact: true }).inputValue()).resolves.toBe('Pat');
    await expect(page.getByLabel('E-mail', { exact: true }).inputValue()).resolves.toBe('parent@example.com');
    await expect(form.locator('dl').innerText()).resolves.toMatch(new RegExp(`Username\\s+parent\\s+Person number\\s+${parentId}\\s+Record created\\s+.+\\s+Last changed\\s+.+`));
    await accessible(page, 'profile');
    await fitsThePhone(page, form, 'profile');

    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { name: 'Mein Profil' }).waitFor();
    await page.getByLabel('E-Mail', { exact: true }).fill('not an address');
    await page.getByLabel('Geschlecht (Nummer)').fill('female');
    await page.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => messageBeside(page, 'E-Mail')).toBe('Das Feld E-Mail muss eine gültige E-Mail-Adresse sein.');
    await expect(messageBeside(page, 'Geschlecht (Nummer)')).resolves.toBe('Das Feld Geschlecht muss eine ganze Zahl sein.');
    // The first field in error is focused and on screen, though the phone had scrolled to the button.
    const email = page.getByLabel('E-Mail', { exact: true });
    await expect.poll(() => email.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await email.evaluate((input) => { const box = input.getBoundingClientRect(); return box.top >= 0 && box.bottom <= window.innerHeight; })).toBe(true);
    await accessible(page, 'profile with errors');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'profile-errors-360.png'), fullPage: true });

    // An administrator adds a phone number meanwhile: a save sends only what it changed, so it stays.
    await api('PATCH', `/people/${parentId}`, { phonenumber: '031 111 22 33' });
    await email.fill('pat.parent@example.org');
    await page.getByLabel('Geschlecht (Nummer)').fill('2');
    await page.getByLabel('Mobiltelefon').fill('+41 79 555 12 34');
    await page.getByLabel('Strasse').fill('Bahnhofstrasse');
    await page.getByLabel('Hausnummer').fill('12a');
    await page.getByLabel('PLZ').fill('3000');
    await page.getByLabel('Ort', { exact: true }).fill('Bern');
    await page.getByRole('group', { name: 'Vegetarisch' }).getByLabel('Ja').check();
    await page.getByRole('button', { name: 'Speichern' }).click();
    await page.getByRole('status').filter({ hasText: 'Gespeichert.' }).waitFor();
    await expect(messageBeside(page, 'E-Mail')).resolves.toBeNull();
    expect((await api('GET', `/people/${parentId}`)).data.person).toMatchObject({
      email: 'pat.parent@example.org',
      gender_id: 2,
      type_id: null,
      phonenumber: '031 111 22 33',
      phonenumber_mobile: '+41 79 555 12 34',
      street: 'Bahnhofstrasse',
      housenumber: '12a',
      zip: '3000',
      city: 'Bern',
      is_vegetarian: true,
      can_swimm: false,
    });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('lets a parent correct their ward\'s swimming answer, saying so when someone else changed the ward first', async () => {
    serverLogOnFailure();
    const { page, problems, requests } = await parentOnPhone();
    const before = requests.length;
    await page.goto(`${base}/#/wards/${wardId}`);
    const heading = page.getByRole('heading', { name: 'Mia Kid', level: 1 });
    await heading.waitFor();
    await page.waitForLoadState('networkidle');
    expect(named(requests.slice(before))).toEqual([`GET /api/people/${wardId}`]);
    const form = page.locator('form', { has: heading });
    const swims = page.getByRole('group', { name: 'Can swim' });
    await expect(swims.getByLabel('No').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Birthday').inputValue()).resolves.toBe('2016-04-02');
    // A guardian is offered the profile only: no login, no memberships.
    expect(await form.getByLabel('Username').count()).toBe(0);
    expect(await form.getByLabel('Password').count()).toBe(0);
    await accessible(page, 'ward');
    await fitsThePhone(page, form, 'ward');

    // Someone else corrects the city meanwhile: this page's version is out of date.
    await api('PATCH', `/people/${wardId}`, { city: 'Thun' });
    await swims.getByLabel('Yes').check();
    await page.getByRole('button', { name: 'Save' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Someone else changed this profile meanwhile.' });
    await alert.waitFor();
    await expect(alert.innerText()).resolves.toMatch(/Not saved, please enter again:\s+Can swim: Yes/);
    // The page now shows what is saved, the other change included, and nothing of ours.
    await expect.poll(() => page.getByLabel('City').inputValue()).toBe('Thun');
    await expect(swims.getByLabel('No').isChecked()).resolves.toBe(true);
    expect((await api('GET', `/people/${wardId}`)).data.person.can_swimm).toBe(false);
    await accessible(page, 'ward after a conflict');

    await swims.getByLabel('Yes').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    // Each try names the version it was changed from: the first the stale one, the second the one read again.
    const patches = requests.filter((request) => request.method() === 'PATCH');
    expect(patches.map((request) => new URL(request.url()).pathname)).toEqual([`/api/people/${wardId}`, `/api/people/${wardId}`]);
    const [first, second] = await Promise.all(patches.map((request) => request.headerValue('if-match')));
    expect(first).toBeTruthy();
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    expect((await api('GET', `/people/${wardId}`)).data.person).toMatchObject({ can_swimm: true, city: 'Thun', birthday: '2016-04-02', firstname: 'Mia' });
    await page.screenshot({ path: join(ARTIFACTS, 'ward-360.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 90_000);
});
