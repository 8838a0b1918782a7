import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_CSP } from '../../src/http/web-app.js';
import { http, ROOT, startServer, type ServerProcess } from '../helpers/processes.js';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { testServices, type TestServices } from '../helpers/services.js';

const ARTIFACTS = join(ROOT, 'test-artifacts');

/** The web app (served at `/`) in Debian's Chromium against the built server. */
describe.runIf(browserAvailable)('the web app in a real browser', () => {
  let dataDir: string;
  let services: TestServices;
  let server: ServerProcess;
  let browser: Browser;
  let credentials: { username: string; password: string };
  let base: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-web-'));
    services = await testServices();
    // One user signs in and walks through every test here within a minute: more than the default
    // limits, which the app would wait out (the 429 has a test of its own, with a server of its own).
    server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', RATE_LIMIT_AUTHENTICATED: '1000', RATE_LIMIT_UNAUTHENTICATED: '1000', ...services.env });
    await new Promise((resolve) => setTimeout(resolve, 200));
    credentials = JSON.parse(/-d '(\{.*\})'/.exec(server.output())![1]!);
    base = `http://127.0.0.1:${server.port}`;
    // The first start names the web app next to the curl line.
    expect(server.output()).toContain(`or open the web app: ${base}/\n`);
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await services?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A page that fails the test on any script error or content-policy violation. */
  const openPage = async (width: number): Promise<{ page: Page; problems: string[]; requests: string[] }> => {
    const context = await browser.newContext({ viewport: { width, height: 800 }, locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !/401|Unauthorized/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    await page.goto(`${base}/`);
    return { page, problems, requests };
  };
  const logIn = async (page: Page) => {
    await page.getByLabel('Username').fill(credentials.username);
    await page.getByLabel('Password').fill(credentials.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'What is next for us' }).waitFor();
  };
  const toProfile = async (page: Page) => {
    await page.getByRole('link', { name: 'My profile' }).click();
    await page.getByRole('heading', { name: 'My profile' }).waitFor();
  };

  it('is served at / with a strict content policy and long-lived assets; an unknown tenant gets a friendly 404', async () => {
    const index = await http(server.port, { path: '/', headers: { host: 'localhost' } });
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toBe(WEB_CSP);
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(index.body)![1]!;
    const script = await http(server.port, { path: asset, headers: { host: 'localhost' } });
    expect(script.status).toBe(200);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const unknown = await http(server.port, { path: '/', headers: { host: 'nosuchclub.localhost' } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/html/);
    expect(unknown.body).toContain('This address belongs to no group');
  });

  it('keeps its scripts and styles under 120 KB gzipped in total', () => {
    const assets = join(ROOT, 'dist/web/assets');
    const files = readdirSync(assets).filter((name) => /\.(js|css)$/.test(name));
    expect(files.some((name) => name.endsWith('.js'))).toBe(true);
    const gzipped = files.reduce((total, name) => total + gzipSync(readFileSync(join(assets, name))).length, 0);
    expect(gzipped).toBeLessThan(120 * 1024);
  });

  it('logs in, edits the profile, switches to German and logs out, with the credential in an HttpOnly cookie only', async () => {
    const { page, problems, requests } = await openPage(1280);
    await logIn(page);
    await toProfile(page);
    await page.getByLabel('City').fill('Bern');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'profile-1280.png'), fullPage: true });

    const storage = await page.evaluate(async () => ({
      local: localStorage.length,
      session: sessionStorage.length,
      databases: (await indexedDB.databases()).length,
      cookie: document.cookie,
    }));
    // The page's script sees XSRF-TOKEN only; the session cookie is HttpOnly.
    expect(storage).toMatchObject({ local: 0, session: 0, databases: 0 });
    expect(storage.cookie).toMatch(/^XSRF-TOKEN=[A-Za-z0-9]{40}$/);
    const cookies = await page.context().cookies();
    expect(cookies.map((cookie) => cookie.name).sort()).toEqual(['XSRF-TOKEN', 'groupadmin_session']);
    expect(cookies.find((cookie) => cookie.name === 'groupadmin_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookies.find((cookie) => cookie.name === 'XSRF-TOKEN')).toMatchObject({ httpOnly: false });

    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { name: 'Mein Profil' }).waitFor();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    await page.getByRole('button', { name: 'Abmelden' }).click();
    await page.getByRole('button', { name: 'Anmelden' }).waitFor();
    expect(requests).toContain('DELETE /api/session');
    expect((await page.context().cookies()).map((cookie) => cookie.name)).toEqual(['XSRF-TOKEN']);
    // No page load after the first: the app is one page.
    expect(requests.filter((request) => request === 'GET /')).toHaveLength(1);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('lives within the request budget: 3 requests for the first screen, at most 2 per later page view', async () => {
    const { page, problems, requests } = await openPage(1280);
    const api = () => requests.filter((request) => request.includes(' /api/') && !request.endsWith('/api/csrf-cookie'));
    await logIn(page);
    // Sign-in itself (POST /session), then the first screen: who and what (access), what is next (agenda), the tree.
    await page.waitForLoadState('networkidle');
    expect(api()).toEqual(['POST /api/session', 'GET /api/user/access', 'GET /api/user/agenda', 'GET /api/groups']);
    const views: [string, string][] = [
      ['Groups', 'Groups'],
      ['My profile', 'My profile'],
      ['Where I am signed in', 'Where I am signed in'],
      ['Home', 'What is next for us'],
    ];
    for (const [link, heading] of views) {
      const before = api().length;
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(api().slice(before).length, `${link}: ${api().slice(before).join(', ')}`).toBeLessThanOrEqual(2);
      // On navigation the focus moves to the new page's heading.
      await expect.poll(() => page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))).toMatch(/^<h1/);
    }
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('lists where I am signed in and signs the other devices out, after asking', async () => {
    const { page, problems } = await openPage(1280);
    await page.getByLabel('Stay signed in on this device').check();
    await logIn(page);
    const remembered = (await page.context().cookies()).find((cookie) => cookie.name === 'groupadmin_session')!;
    expect(remembered.expires).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
    const { page: phone } = await openPage(360);
    await logIn(phone);
    await page.getByRole('link', { name: 'Where I am signed in' }).click();
    await page.getByText('This device').waitFor();
    expect(await page.getByText('Another device').count()).toBeGreaterThanOrEqual(1);
    // A dismissed question changes nothing.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Sign out all other devices' }).click();
    await phone.reload();
    await phone.getByRole('heading', { name: 'What is next for us' }).waitFor();
    page.once('dialog', (dialog) => {
      expect(dialog.message()).toMatch(/^Sign out \d+ other devices?\? They will have to sign in again\.$/);
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Sign out all other devices' }).click();
    await page.getByText('Signed out.').waitFor();
    await expect.poll(() => page.getByText('Another device').count()).toBe(0);
    await phone.reload();
    await phone.getByRole('button', { name: 'Log in' }).waitFor();
    // This device stays signed in (the reload keeps the page).
    await page.reload();
    await page.getByText('This device').waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
    await phone.context().close();
  }, 60_000);

  it('stays signed in across a reload and in a second tab, until signed out', async () => {
    const { page, problems } = await openPage(1280);
    await logIn(page);
    await page.reload();
    await page.getByRole('heading', { name: 'What is next for us' }).waitFor();
    const second = await page.context().newPage();
    await second.goto(`${base}/#/wards`);
    await second.getByRole('button', { name: 'Log out' }).waitFor();
    await second.getByRole('button', { name: 'Log out' }).click();
    await second.getByRole('button', { name: 'Log in' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('waits out a 429 and says when it tries again, keeping what was typed', async () => {
    // A storage of its own (on PostgreSQL another database): its first start prints an account.
    const limitedDir = mkdtempSync(join(tmpdir(), 'groupadmin-web-429-'));
    const limitedServices = await testServices();
    const limited = await startServer({ DATA_DIR: limitedDir, LOG_LEVEL: 'info', RATE_LIMIT_AUTHENTICATED: '8', ...limitedServices.env });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const account = JSON.parse(/-d '(\{.*\})'/.exec(limited.output())![1]!);
      const context = await browser.newContext({ locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${limited.port}/`);
      await page.getByLabel('Username').fill(account.username);
      await page.getByLabel('Password').fill(account.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'What is next for us' }).waitFor();
      await page.getByRole('link', { name: 'My profile' }).click();
      await page.getByLabel('City').fill('Chur');
      // Eight requests a minute: the next saves run out of them.
      const waiting = page.getByRole('status').filter({ hasText: /trying again/ });
      for (let i = 0; i < 8 && !(await waiting.isVisible()); i += 1) {
        await page.getByRole('button', { name: 'Save' }).click();
        await page.waitForTimeout(150);
      }
      await expect(waiting.innerText()).resolves.toMatch(/^Too many requests at once: trying again (in \d+ seconds?|now)…$/);
      // Not an error, not missing data: the form keeps what was typed while the request waits.
      expect(await page.getByRole('alert').count()).toBe(0);
      await expect(page.getByLabel('City').inputValue()).resolves.toBe('Chur');
      await context.close();
    } finally {
      await limited.stop();
      await limitedServices.cleanup();
      rmSync(limitedDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('returns to the login page on a 401 and works at 360 px', async () => {
    const { page, problems } = await openPage(360);
    await logIn(page);
    await toProfile(page);
    await page.screenshot({ path: join(ARTIFACTS, 'profile-360.png'), fullPage: true });
    const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(fits).toBe(true);
    // Another session ends every other token of the user (DELETE /api/tokens): the page's one too.
    const login = await http(server.port, {
      method: 'POST',
      path: '/api/login',
      headers: { host: 'localhost', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(credentials),
    });
    const other = JSON.parse(login.body).api_key.plainTextToken as string;
    const revoked = await http(server.port, { method: 'DELETE', path: '/api/tokens', headers: { host: 'localhost', accept: 'application/json', authorization: `Bearer ${other}` } });
    expect(revoked.status).toBeLessThan(300);
    await page.getByLabel('City').fill('Thun');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
