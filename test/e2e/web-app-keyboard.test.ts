import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { startWebServer, type WebServer } from '../helpers/web-server.js';

/**
 * A parent's task done with the keyboard alone: sign in, skip past the bar, open the camp from the
 * home page, register a child with notes and a corrected answer, and see the confirmation. Every
 * step is a Tab, Enter, Space or an arrow key; the focus is visible where it lands.
 */
describe.runIf(browserAvailable)('the web app by keyboard alone', () => {
  let web: WebServer;
  let browser: Browser;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: object) => web.apiOk(method, path, body);

  beforeAll(async () => {
    web = await startWebServer('keyboard');
    const root = (await api('GET', '/groups?limit=1')).data.groups[0].id as number;
    const troop = (await api('POST', '/groups', { parent_id: root, name: 'Otters' })).data.group.id as number;
    const person = async (body: object) => (await api('POST', '/people', body)).data.person.id as number;
    ids.parent = await person({ firstname: 'Kay', lastname: 'Key', username: 'kay', password: 'kay password 1', email: 'kay@example.org', membership: { group_id: root, role_type: 'member' } });
    ids.child = await person({ firstname: 'Kit', lastname: 'Key', can_swimm: true, membership: { group_id: troop, role_type: 'member' } });
    await api('POST', `/people/${ids.child}/guardians`, { guardian_id: ids.parent });
    const start = new Date(Date.now() + 20 * 86_400_000);
    start.setUTCHours(8, 0, 0, 0);
    ids.camp = (await api('POST', '/events', { group_id: troop, name: 'Otter camp', starts_at: start.toISOString(), ends_at: new Date(start.getTime() + 86_400_000).toISOString() })).data.event.id;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
  });

  /** What has the focus: its tag, accessible text and whether the focus is drawn (an outline). */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      const style = element ? getComputedStyle(element) : null;
      return {
        tag: element?.tagName.toLowerCase(),
        text: (element?.textContent ?? '').trim() || element?.getAttribute('name') || '',
        visible: style !== null && (style.outlineStyle !== 'none' || style.boxShadow !== 'none'),
      };
    });
  /** Presses Tab until the focus is on an element whose text matches, at most `most` times. */
  const tabTo = async (page: Page, text: RegExp, most = 40) => {
    for (let i = 0; i < most; i += 1) {
      await page.keyboard.press('Tab');
      const now = await focused(page);
      if (text.test(now.text)) return now;
    }
    throw new Error(`no focusable element matching ${text} within ${most} tabs`);
  };

  it('registers a child from the home page with Tab, Space, arrows and Enter', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${web.base}/`);
    // The skip link comes first, then the language switch in the bar, then the form.
    await page.keyboard.press('Tab');
    expect((await focused(page)).text).toBe('Skip to content');
    await tabTo(page, /^username$/);
    await page.keyboard.type('kay');
    await page.keyboard.press('Tab');
    await page.keyboard.type('kay password 1');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'What is next for us' }).waitFor();
    // After the sign-in the focus is on the page's heading, not in a form.
    await expect.poll(async () => (await focused(page)).tag).toBe('h1');

    const link = await tabTo(page, /^Register: Kit$/);
    expect(link.visible).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Otter camp', level: 1 }).waitFor();
    await tabTo(page, /^Register: Kit Key$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Register Kit Key for Otter camp' }).waitFor();
    await tabTo(page, /^notes$/);
    await page.keyboard.type('Hay fever');
    // The swimming answer: into its radio group, then the arrow moves the choice to "No".
    await tabTo(page, /^can_swimm$/);
    await page.keyboard.press('ArrowRight');
    const submit = await tabTo(page, /^Register: Kit$/);
    expect(submit.visible).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByText('Kit: Accepted').waitFor();

    const child = (await api('GET', `/people/${ids.child}`)).data.person;
    expect(child.can_swimm).toBe(false);
    const [participation] = (await api('GET', `/events/${ids.camp}/participations`)).data.participations;
    expect(participation).toMatchObject({ person_id: ids.child, state: 'accepted', notes: 'Hay fever' });
    await context.close();
  }, 60_000);
});
