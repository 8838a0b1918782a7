import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateApiMessage } from '../../web/src/i18n/api-messages.js';
import type { Language } from '../../web/src/i18n/index.js';
import { browserAvailable, languagesAtWidths, launchChromium, ofThisPass } from '../helpers/browser.js';
import { startWebServer, type WebServer } from '../helpers/web-server.js';
import { check, messageBeside, nextQuestion, requestsDuring, serverLogOnFailure, signIn as signInAs, view, visit, type Journey } from '../helpers/web-journey.js';

const ZONE = 'Europe/Zurich';
const WIDTHS = [1280, 360] as const;

/** A test's webhook receiver: what it was sent, answered 200. */
interface Receiver {
  url: string;
  received: { headers: Record<string, string | string[] | undefined>; body: string }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Receiver['received'] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * The administrators' pages in Debian's Chromium against the built server: role types (made,
 * changed, a refusal with the API's reason, deleted), the tenant's settings, API tokens (the token
 * shown once, revoked after a question) and webhooks (the secret shown once, changed, tested,
 * deliveries), and on a person's page their data as a file and erasing them by typing their name.
 * In German, English and French, at 1280 and 360 px; every page free of English text in German and
 * French, never scrolling sideways, clean for axe-core, within its request budget. Every outcome
 * is read back through the API.
 */
describe.runIf(browserAvailable)("the web app: the administrators' pages", () => {
  let web: WebServer;
  let browser: Browser;
  let receiver: Receiver;
  let credentials: { username: string; password: string };
  let me: { id: number; firstname: string; lastname: string };
  const ids = {} as Record<'root' | 'troop', number>;
  const api = (method: string, path: string, body?: object) => web.apiOk(method, path, body);

  beforeAll(async () => {
    web = await startWebServer('admin', { RATE_LIMIT_AUTHENTICATED: '100000', RATE_LIMIT_UNAUTHENTICATED: '1000', TZ: ZONE, WEBHOOKS_ALLOW_PRIVATE: 'true' });
    credentials = JSON.parse(/-d '(\{.*\})'/.exec(web.server.output())![1]!) as typeof credentials;
    me = (await api('GET', '/user/access')).data.user;
    ids.root = (await api('GET', '/groups?limit=1')).data.groups[0].id;
    ids.troop = (await api('POST', '/groups', { parent_id: ids.root, name: 'Falken' })).data.group.id;
    receiver = await startReceiver();
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await web?.stop();
  });

  /** The tenant's first administrator, signed in; the browser is in New York, the tenant in Zurich. */
  const signIn = (language: Language, width: number, name: string): Promise<Journey> =>
    signInAs({ web, browser, ...credentials, language, width, timeZone: 'America/New_York', name: `admin-${name}` });

  /** The administrators' start page, reached from the app's bar, and one of its pages by its link (one read). */
  const openAdmin = async (admin: Journey, link: string, heading: string) => {
    const { page, words } = admin;
    expect(await view(admin, () => page.getByRole('navigation').getByRole('link', { name: words.administration, exact: true }).click(), words.administration)).toEqual([]);
    await check(admin, 'administration');
    return view(admin, () => page.getByRole('main').getByRole('link', { name: link, exact: true }).click(), heading);
  };

  const roleTypes = async () => (await api('GET', '/role-types')).data.role_types as { key: string; label: string; permission: string; scope: string }[];

  it('offers the administration to administrators of the root only, and API tokens to everyone', async () => {
    serverLogOnFailure(web);
    await api('POST', '/people', { firstname: 'Lea', lastname: 'Lindt', username: 'lea', password: 'a password for the camp', email: 'lea@example.org', membership: { group_id: ids.troop, role_type: 'leader' } });
    const leader = await signInAs({ web, browser, username: 'lea', password: 'a password for the camp', language: 'en', width: 1280, timeZone: ZONE, name: 'admin-leader' });
    const nav = leader.page.getByRole('navigation');
    await expect(nav.getByRole('link', { name: leader.words.apiTokens, exact: true }).count()).resolves.toBe(1);
    await expect(nav.getByRole('link', { name: leader.words.administration, exact: true }).count()).resolves.toBe(0);
    // The address typed by hand shows the home page, not the settings.
    await visit(leader, '/admin/role-types', leader.words.nextForUs);
    await expect(leader.page.getByRole('heading', { name: leader.words.roleTypes, exact: true }).count()).resolves.toBe(0);
    await leader.close();
  }, 60_000);

  it('lets an administrator create, change and delete role types, the refusal with the API\'s reason, in German', async () => {
    serverLogOnFailure(web);
    for (const width of ofThisPass(WIDTHS)) {
      const admin = await signIn('de', width, 'role-types');
      const { page, words } = admin;
      expect(await openAdmin(admin, words.roleTypes, words.roleTypes)).toEqual(['GET /api/role-types']);
      await check(admin, 'role types');
      const form = page.getByRole('form', { name: words.newRoleType });

      // A key the API refuses: its message beside the field, in German.
      await form.getByLabel(words.roleKey, { exact: true }).fill('Küche');
      await form.getByLabel(words.permission, { exact: true }).selectOption('read');
      await form.getByLabel(words.scope, { exact: true }).selectOption('group');
      await form.getByRole('button', { name: words.create, exact: true }).click();
      const refused = (await web.api('POST', '/role-types', { key: 'Küche', permission: 'read', scope: 'group' })).errors.key[0] as string;
      await expect.poll(() => messageBeside(form, words.roleKey)).toContain(translateApiMessage(refused, 'de'));
      await check(admin, 'role types, a refused key');

      // Created with a label, permission and scope, none of them preselected.
      const key = `kitchen_${width}`;
      await form.getByLabel(words.roleKey, { exact: true }).fill(key);
      await form.getByLabel(words.roleLabel, { exact: true }).fill('Küchenteam');
      expect(await requestsDuring(admin, () => form.getByRole('button', { name: words.create, exact: true }).click())).toEqual(
        expect.arrayContaining(['GET /api/role-types', 'GET /api/user/access', 'POST /api/role-types']),
      );
      await page.getByRole('status').filter({ hasText: words.roleTypeCreated('Küchenteam') }).waitFor();
      expect((await roleTypes()).find((role) => role.key === key)).toEqual({ key, label: 'Küchenteam', permission: 'read', scope: 'group' });
      await expect(form.getByLabel(words.permission, { exact: true }).inputValue()).resolves.toBe('');

      // Changed in place.
      const item = page.locator('details', { hasText: `(${key})` });
      await item.locator('summary').click();
      const edit = item.getByRole('form', { name: words.editRoleType('Küchenteam') });
      await edit.getByLabel(words.roleLabel, { exact: true }).fill('Küche');
      await edit.getByLabel(words.permission, { exact: true }).selectOption('write');
      await edit.getByLabel(words.scope, { exact: true }).selectOption('subtree');
      expect(await requestsDuring(admin, () => edit.getByRole('button', { name: words.save, exact: true }).click())).toContain(`PATCH /api/role-types/${key}`);
      await page.getByRole('status').filter({ hasText: words.roleTypeSaved('Küche') }).waitFor();
      expect((await roleTypes()).find((role) => role.key === key)).toEqual({ key, label: 'Küche', permission: 'write', scope: 'subtree' });
      await check(admin, 'role types, one changed');

      // A role type in use (the administrator's own) stays, and the page says why, in German.
      const admins = page.locator('details', { hasText: '(admin)' });
      await admins.locator('summary').click();
      const asked = nextQuestion(page, true);
      await admins.getByRole('button', { name: words.deleteRoleType, exact: true }).click();
      await expect(asked).resolves.toBe(words.confirmDeleteRoleType(words.roleAdmin));
      await admins.getByRole('alert').filter({ hasText: words.roleTypeNotDeleted(translateApiMessage('The role type is still in use.', 'de')) }).waitFor();
      expect((await roleTypes()).map((role) => role.key)).toContain('admin');
      await check(admin, 'role types, a refusal');

      // Deleted, asked first; a "no" keeps it.
      const kitchen = page.locator('details', { hasText: `(${key})` });
      const declined = nextQuestion(page, false);
      await kitchen.getByRole('button', { name: words.deleteRoleType, exact: true }).click();
      await expect(declined).resolves.toBe(words.confirmDeleteRoleType('Küche'));
      expect((await roleTypes()).map((role) => role.key)).toContain(key);
      const accepted = nextQuestion(page, true);
      await kitchen.getByRole('button', { name: words.deleteRoleType, exact: true }).click();
      await accepted;
      await page.getByRole('status').filter({ hasText: words.roleTypeDeleted('Küche') }).waitFor();
      expect((await roleTypes()).map((role) => role.key)).not.toContain(key);
      expect(admin.found).toEqual([]);
      await admin.close();
    }
  }, 180_000);

  it('lets an administrator change the tenant\'s name, time zone and language, in English and French', async () => {
    serverLogOnFailure(web);
    // Both cases in every pass: the second puts back the zone and language the later tests expect.
    const cases = [
      { language: 'en', width: 1280, name: 'Pfadi Falken', zone: 'Europe/Helsinki', locale: 'fr' },
      { language: 'fr', width: 360, name: 'Scouts Faucons', zone: ZONE, locale: 'de' },
    ] as const;
    for (const { language, width, name, zone, locale } of cases) {
      const admin = await signIn(language, width, 'tenant');
      const { page, words } = admin;
      const before = (await api('GET', '/tenant')).data.tenant;
      expect(await openAdmin(admin, words.tenantSettings, words.tenantSettings)).toEqual(['GET /api/tenant']);
      const form = page.getByRole('form', { name: words.tenantSettings });
      // The current settings are the ones shown; the hint says that events keep their moment.
      await expect(form.getByLabel(words.tenantName, { exact: true }).inputValue()).resolves.toBe(before.name);
      const zones = form.getByLabel(words.timeZone, { exact: true });
      await expect(zones.inputValue()).resolves.toBe(before.timezone);
      await expect(messageBeside(form, words.timeZone)).resolves.toContain(words.timeZoneHint);
      await check(admin, 'tenant settings');

      // A zone the API does not know: its message beside the field, in the reader's language.
      await zones.fill('Europe/Atlantis');
      expect(await requestsDuring(admin, () => form.getByRole('button', { name: words.save, exact: true }).click())).toEqual(['PATCH /api/tenant']);
      await expect.poll(() => messageBeside(form, words.timeZone)).toContain(translateApiMessage('The timezone field must be a valid timezone.', language));
      expect((await api('GET', '/tenant')).data.tenant.timezone).toBe(before.timezone);
      await check(admin, 'tenant settings, an unknown zone');
      await zones.fill(zone);
      await form.getByLabel(words.tenantName, { exact: true }).fill(name);
      await form.getByLabel(words.tenantLanguage, { exact: true }).selectOption(locale);
      expect(await requestsDuring(admin, () => form.getByRole('button', { name: words.save, exact: true }).click())).toEqual(
        expect.arrayContaining(['PATCH /api/tenant', 'GET /api/user/access']),
      );
      await page.getByRole('status').filter({ hasText: words.tenantSaved }).waitFor();
      expect((await api('GET', '/tenant')).data.tenant).toMatchObject({ name, timezone: zone, locale });
      await check(admin, 'tenant settings saved');
      expect(admin.found).toEqual([]);
      await admin.close();
    }
  }, 120_000);

  it('lets anyone make an API token shown once and revoke it, asked first, in French and English', async () => {
    serverLogOnFailure(web);
    const cases = [
      { language: 'fr', width: 1280 },
      { language: 'en', width: 360 },
    ] as const;
    for (const { language, width } of ofThisPass(cases)) {
      const admin = await signIn(language, width, 'tokens');
      const { page, words } = admin;
      expect(await view(admin, () => page.getByRole('navigation').getByRole('link', { name: words.apiTokens, exact: true }).click(), words.apiTokens)).toEqual(['GET /api/tokens']);
      // The browser's own session is not among them (the sessions page lists those).
      await expect(page.getByRole('main').getByText('web session').count()).resolves.toBe(0);
      await check(admin, 'tokens');
      const form = page.getByRole('form', { name: words.newToken });
      const name = `Kalender ${width}`;
      await form.getByLabel(words.tokenName, { exact: true }).fill(name);
      // No ability chosen: said beside the abilities, nothing sent.
      expect(await requestsDuring(admin, () => form.getByRole('button', { name: words.createToken, exact: true }).click())).toEqual([]);
      await form.getByText(words.chooseAbility).waitFor();
      await form.getByRole('checkbox', { name: new RegExp(`^${words.abilityWord('events:read')}`) }).check();
      await form.getByRole('checkbox', { name: new RegExp(`^${words.abilityWord('people:read')}`) }).check();
      await form.getByLabel(words.expiresOn, { exact: true }).fill('2030-06-30');
      expect(await requestsDuring(admin, () => form.getByRole('button', { name: words.createToken, exact: true }).click())).toEqual(['GET /api/tokens', 'POST /api/tokens']);
      await page.getByText(words.tokenOnce).waitFor();
      const shown = await page.getByLabel(words.theToken, { exact: true }).inputValue();
      await check(admin, 'tokens, one shown once');

      // The token works, with the abilities and the expiry chosen (the end of that day in Zurich).
      const token = ((await api('GET', '/tokens')).data.tokens as { id: number; name: string; abilities: string[]; expires_at: string }[]).find((t) => t.name === name)!;
      expect(token.abilities.sort()).toEqual(['events:read', 'people:read']);
      expect(token.expires_at).toMatch(/^2030-06-30T21:59:00/);
      expect((await web.api('GET', '/user/access', undefined, shown)).data.user.id).toBe(me.id);
      expect((await web.api('GET', '/webhooks', undefined, shown)).message).toBe('Invalid ability provided.');

      // Revoked, asked first: it no longer opens anything.
      const item = page.getByRole('listitem', { name, exact: true });
      const asked = nextQuestion(page, true);
      await item.getByRole('button', { name: `${words.revoke}: ${name}`, exact: true }).click();
      await expect(asked).resolves.toBe(words.confirmRevokeToken(name));
      await page.getByRole('status').filter({ hasText: words.tokenRevoked(name) }).waitFor();
      expect((await web.api('GET', '/user/access', undefined, shown)).message).toBe('Unauthenticated.');
      expect(((await api('GET', '/tokens')).data.tokens as { name: string }[]).map((t) => t.name)).not.toContain(name);
      expect(admin.found).toEqual([]);
      await admin.close();
    }
  }, 120_000);

  it('lets an administrator create a webhook (the secret shown once), change it, send a test and see its deliveries, in English and German', async () => {
    serverLogOnFailure(web);
    const cases = [
      { language: 'en', width: 1280 },
      { language: 'de', width: 360 },
    ] as const;
    for (const { language, width } of ofThisPass(cases)) {
      const admin = await signIn(language, width, 'webhooks');
      const { page, words } = admin;
      expect(await openAdmin(admin, words.webhooks, words.webhooks)).toEqual(['GET /api/webhooks']);
      await check(admin, 'webhooks');
      const url = `${receiver.url}/${width}`;
      const form = page.getByRole('form', { name: words.newWebhook });
      await form.getByLabel(words.webhookUrl, { exact: true }).fill(url);
      await form.getByRole('checkbox', { name: words.entityWord('person'), exact: true }).check();
      await form.getByRole('checkbox', { name: words.entityWord('event'), exact: true }).check();
      expect(await requestsDuring(admin, () => form.getByRole('button', { name: words.createWebhook, exact: true }).click())).toEqual(['GET /api/webhooks', 'POST /api/webhooks']);
      await page.getByText(words.secretOnce).waitFor();
      expect(await page.getByLabel(words.theSecret, { exact: true }).inputValue()).toMatch(/^whsec_/);
      const webhooks = async () => (await api('GET', '/webhooks')).data.webhooks as { id: number; url: string; entities: string[] | null; enabled: boolean }[];
      const created = (await webhooks()).find((webhook) => webhook.url === url)!;
      expect(created).toMatchObject({ entities: ['person', 'event'], enabled: true });
      await check(admin, 'webhooks, the secret shown once');

      // A test, answered by the receiver; the deliveries then show it.
      const item = page.locator('details', { hasText: url });
      await item.locator('summary').click();
      const sent = receiver.received.length;
      expect(await requestsDuring(admin, () => item.getByRole('button', { name: words.sendTest, exact: true }).click())).toEqual([`POST /api/webhooks/${created.id}/test`]);
      await item.getByRole('status').filter({ hasText: words.testSent('HTTP 200') }).waitFor();
      expect(receiver.received.slice(sent).map((delivery) => JSON.parse(delivery.body).type)).toContain('ping');
      expect(receiver.received.at(-1)!.headers['webhook-signature']).toMatch(/^v1,/);
      expect(await requestsDuring(admin, () => item.getByRole('button', { name: words.showDeliveries, exact: true }).click())).toEqual([`GET /api/webhooks/${created.id}/deliveries`]);
      await item.getByRole('listitem').filter({ hasText: 'ping' }).first().waitFor();
      await check(admin, 'webhooks, deliveries');

      // Changed: every kind of change, stopped.
      const edit = item.getByRole('form', { name: url });
      await edit.getByRole('checkbox', { name: words.entityWord('person'), exact: true }).uncheck();
      await edit.getByRole('checkbox', { name: words.entityWord('event'), exact: true }).uncheck();
      await edit.getByRole('checkbox', { name: words.webhookEnabled, exact: true }).uncheck();
      await edit.getByLabel(words.webhookUrl, { exact: true }).fill(`${url}/v2`);
      expect(await requestsDuring(admin, () => edit.getByRole('button', { name: words.save, exact: true }).click())).toEqual(['GET /api/webhooks', `PATCH /api/webhooks/${created.id}`]);
      await page.getByRole('status').filter({ hasText: words.webhookSaved }).waitFor();
      expect((await webhooks()).find((webhook) => webhook.id === created.id)).toMatchObject({ url: `${url}/v2`, entities: null, enabled: false });
      await check(admin, 'webhooks, one changed');
      expect(admin.found).toEqual([]);
      await admin.close();
    }
  }, 120_000);

  it('lets an administrator download a person\'s data and erase the person by typing the name, in German and English', async () => {
    serverLogOnFailure(web);
    const cases = [
      { language: 'de', width: 360 },
      { language: 'en', width: 1280 },
    ] as const;
    for (const { language, width } of ofThisPass(cases)) {
      const firstname = `Erik${width}`;
      const id = (await api('POST', '/people', { firstname, lastname: 'Ende', email: `erik${width}@example.org`, membership: { group_id: ids.troop, role_type: 'member' } })).data.person.id as number;
      const admin = await signIn(language, width, 'erase');
      const { page, words } = admin;
      const fullName = `${firstname} Ende`;
      // The person has an address: its mail status is the page's second read.
      expect(await visit(admin, `/people/${id}`, fullName)).toEqual([`GET /api/people/${id}`, `GET /api/people/${id}/email-status`]);
      const section = page.getByRole('region', { name: words.personAdmin });
      await check(admin, 'person, for administrators');

      // The person's data as a JSON file.
      const downloading = page.waitForEvent('download');
      expect(await requestsDuring(admin, () => section.getByRole('button', { name: words.downloadPersonData, exact: true }).click())).toEqual([`GET /api/people/${id}/export`]);
      const file = await downloading;
      expect(file.suggestedFilename()).toBe(`person-${id}.json`);
      expect(readFileSync((await file.path())!, 'utf8')).toContain(`erik${width}@example.org`);

      // A name that is not theirs: said beside the field, nothing sent.
      const erase = section.getByRole('form', { name: words.erasePerson });
      await erase.getByLabel(words.typeFullName, { exact: true }).fill('Erik');
      expect(await requestsDuring(admin, () => erase.getByRole('button', { name: words.erasePerson, exact: true }).click())).toEqual([]);
      await expect.poll(() => messageBeside(erase, words.typeFullName)).toContain(words.nameDoesNotMatch(fullName));
      await check(admin, 'person, a wrong name');

      // The name, then a "yes": erased.
      await erase.getByLabel(words.typeFullName, { exact: true }).fill(fullName);
      const asked = nextQuestion(page, true);
      await erase.getByRole('button', { name: words.erasePerson, exact: true }).click();
      await expect(asked).resolves.toBe(words.confirmErase(fullName));
      await page.getByRole('status').filter({ hasText: words.erased(fullName) }).waitFor();
      expect((await web.api('GET', `/people/${id}`)).message).toBe('Person not found.');

      // The last administrator is not erased: the API's reason, in the reader's language.
      const myName = `${me.firstname} ${me.lastname}`;
      await visit(admin, `/people/${me.id}`, myName);
      const mine = page.getByRole('region', { name: words.personAdmin }).getByRole('form', { name: words.erasePerson });
      await mine.getByLabel(words.typeFullName, { exact: true }).fill(myName);
      const refusing = nextQuestion(page, true);
      await mine.getByRole('button', { name: words.erasePerson, exact: true }).click();
      await refusing;
      await expect.poll(() => messageBeside(mine, words.typeFullName)).toContain(words.notErased(translateApiMessage('The last administrator cannot be removed.', language)));
      expect((await api('GET', `/people/${me.id}`)).data.person.id).toBe(me.id);
      await check(admin, 'person, the last administrator');
      expect(admin.found).toEqual([]);
      await admin.close();
    }
  }, 120_000);
  it("shows every administrator's page, and the import, in German, French and English at 360 and 1280 px (divided between the passes)", async () => {
    serverLogOnFailure(web);
    const tim = (await api('POST', '/people', { firstname: 'Tim', lastname: 'Tour', membership: { group_id: ids.troop, role_type: 'member' } })).data.person.id as number;
    const troop = (await api('GET', `/groups/${ids.troop}`)).data.group.name as string;
    for (const { language, width } of ofThisPass(languagesAtWidths(['de', 'fr', 'en'] as const))) {
      const admin = await signIn(language, width, 'tour');
      const { words } = admin;
      const pages: [string, string][] = [
        ['/admin', words.administration],
        ['/admin/role-types', words.roleTypes],
        ['/admin/tenant', words.tenantSettings],
        ['/tokens', words.apiTokens],
        ['/admin/webhooks', words.webhooks],
        [`/groups/${ids.troop}/import`, words.importInto(troop)],
        [`/people/${tim}`, 'Tim Tour'],
      ];
      for (const [hash, heading] of pages) {
        await visit(admin, hash, heading);
        await check(admin, `tour ${hash}`);
      }
      expect(admin.found).toEqual([]);
      await admin.close();
    }
  }, 180_000);
});
