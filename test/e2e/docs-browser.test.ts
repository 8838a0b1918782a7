import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, startServer } from '../helpers/processes.js';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { testServices } from '../helpers/services.js';


describe.runIf(browserAvailable)('the documentation page in a real browser', () => {
  it('lists the original endpoints and those of the group core, and logs in through "try it out"', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-docs-'));
    const services = await testServices();
    const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...services.env });
    const browser = await launchChromium();
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const credentials = /-d '(\{.*\})'/.exec(server.output())?.[1];
      expect(credentials, server.output()).toBeDefined();

      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${server.port}/api/docs/`);
      const login = page.locator('.opblock-post', { hasText: '/login' }).first();
      await login.waitFor({ timeout: 15_000 });
      await expect(page.locator('.opblock-get', { hasText: '/user' }).first().isVisible()).resolves.toBe(true);
      // The group core is on the page too, each resource under its tag.
      for (const [method, path] of [['get', '/groups/{id}'], ['post', '/people'], ['patch', '/memberships/{id}'], ['delete', '/role-types/{key}']] as const) {
        await expect(page.locator(`.opblock-${method}`, { hasText: path }).first().isVisible(), `${method} ${path}`).resolves.toBe(true);
      }
      for (const tag of ['groups', 'roles', 'people', 'memberships', 'events', 'participations']) {
        await expect(page.locator(`h3.opblock-tag[data-tag="${tag}"]`).isVisible(), tag).resolves.toBe(true);
      }

      await login.locator('.opblock-summary').click();
      const body = login.locator('textarea.body-param__text');
      await body.waitFor();
      await body.fill(credentials!);
      await login.locator('button.execute').click();
      const status = login.locator('.live-responses-table tr.response .response-col_status').first();
      await status.waitFor({ timeout: 15_000 });
      expect((await status.innerText()).trim()).toBe('200');
      await expect(login.locator('.live-responses-table .microlight').first().innerText()).resolves.toContain('plainTextToken');

      mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
      await page.screenshot({ path: join(ROOT, 'test-artifacts', 'docs-page.png'), fullPage: true });
    } finally {
      await browser.close();
      await server.stop();
      await services.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
