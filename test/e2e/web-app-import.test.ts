import ExcelJS from 'exceljs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateApiMessage } from '../../web/src/i18n/api-messages.js';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { check, requestsDuring, serverLogOnFailure, signIn, visit, type Journey } from '../helpers/web-journey.js';
import { startWebServer, type WebServer } from '../helpers/web-server.js';

/** A German member list as Excel on Windows saves it "as CSV": semicolons, Windows-1252, German headers and values. */
const GERMAN_CSV = Buffer.from(
  'Vorname;Nachname;Geburtstag;Schwimmer;Vegetarier;Ort\r\n' + 'Jürg;Müller;04.03.2014;WAHR;x;Zürich\r\n' + 'Anaïs;Favre;4.3.2015;FALSCH;;Genève\r\n',
  'latin1',
);

/**
 * Importing people into a group in the browser: the file and the role, the dry run as a table
 * (what each row would do, every row's errors), then the import, read back through the API. A
 * German spreadsheet saved by Excel as CSV, in German at 360 px; an Excel workbook in French at
 * 1280 px; a file with mistakes, whose rows are named and nothing written.
 */
describe.runIf(browserAvailable)('the web app: importing people', () => {
  let web: WebServer;
  let browser: Browser;
  let troop: number;
  const journeys: Journey[] = [];

  beforeAll(async () => {
    web = await startWebServer('import', { RATE_LIMIT_AUTHENTICATED: '100000', RATE_LIMIT_UNAUTHENTICATED: '1000' });
    const root = (await web.apiOk('GET', '/groups?limit=1')).data.groups[0].id as number;
    troop = (await web.apiOk('POST', '/groups', { parent_id: root, name: 'Biber' })).data.group.id;
    await web.apiOk('POST', '/people', { firstname: 'Lea', lastname: 'Lindt', username: 'lea', password: 'lea password 1', email: 'lea@example.org', membership: { group_id: troop, role_type: 'leader' } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    for (const journey of journeys) expect(journey.found, journey.name).toEqual([]);
    await browser?.close();
    await web?.stop();
  });

  const leader = async (language: 'de' | 'fr' | 'en', width: number) => {
    const journey = await signIn({ web, browser, username: 'lea', password: 'lea password 1', language, width, timeZone: 'Europe/Zurich', name: 'import' });
    journeys.push(journey);
    return journey;
  };
  const members = async () => (await web.apiOk('GET', `/people?group_id=${troop}&limit=200`)).data.people as Record<string, unknown>[];

  it('imports a German CSV from Excel after showing what each row would do, at 360 px', async () => {
    serverLogOnFailure(web);
    const journey = await leader('de', 360);
    const { page, words } = journey;
    await visit(journey, `/groups/${troop}`, 'Biber');
    expect(await requestsDuring(journey, () => page.getByRole('link', { name: words.importPeople }).click())).toEqual([]);
    await page.getByRole('heading', { level: 1, name: words.importInto('Biber') }).waitFor();
    await page.getByLabel(words.importFile).setInputFiles({ name: 'mitglieder.csv', mimeType: 'text/csv', buffer: GERMAN_CSV });
    // The role a new child gets is preselected: Mitglied.
    await expect(page.getByRole('combobox', { name: words.role }).inputValue()).resolves.toBe('member');
    const checking = await requestsDuring(journey, () => page.getByRole('button', { name: words.checkFile }).click());
    expect(checking).toEqual(['POST /api/people/import']);
    await page.getByText(words.wouldImport(2, 0, 0)).waitFor();
    await expect(page.getByRole('table').locator('tbody tr').count()).resolves.toBe(2);
    await expect(page.getByRole('table').locator('tbody tr').first().innerText()).resolves.toContain('Jürg');
    await check(journey, 'dry run');
    // Nothing is written by the check.
    expect((await members()).map((p) => p.firstname)).toEqual(['Lea']);
    await page.getByRole('button', { name: words.importNow(2) }).click();
    await page.getByText(words.imported(2, 0, 0)).waitFor();
    const imported = await members();
    expect(imported.find((p) => p.lastname === 'Müller')).toMatchObject({ firstname: 'Jürg', birthday: '2014-03-04', can_swimm: true, is_vegetarian: true, city: 'Zürich' });
    expect(imported.find((p) => p.lastname === 'Favre')).toMatchObject({ firstname: 'Anaïs', birthday: '2015-03-04', can_swimm: false, is_vegetarian: false, city: 'Genève' });
  });

  it('names each wrong row and imports nothing, then imports an Excel workbook, in French at 1280 px', async () => {
    serverLogOnFailure(web);
    const journey = await leader('fr', 1280);
    const { page, words } = journey;
    await visit(journey, `/groups/${troop}/import`, words.importInto('Biber'));
    const wrong = Buffer.from('Prénom,Nom,Date de naissance\r\nLou,Roux,31.02.2014\r\nZoé,Blanc,2014-05-06\r\n', 'utf8');
    await page.getByLabel(words.importFile).setInputFiles({ name: 'liste.csv', mimeType: 'text/csv', buffer: wrong });
    await page.getByRole('button', { name: words.checkFile }).click();
    await page.getByText(words.rowErrors(1)).waitFor();
    const listed = await page.getByRole('alert').filter({ hasText: words.rowNumber(2) }).innerText();
    expect(listed).toContain(words.rowNumber(2));
    expect(listed).not.toContain('The birthday field');
    await expect(page.getByRole('button', { name: words.importNow(2) }).count()).resolves.toBe(0);
    await check(journey, 'row errors');
    expect((await members()).some((p) => p.lastname === 'Blanc')).toBe(false);

    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Membres');
    sheet.addRow(['Prénom', 'Nom', 'Date de naissance', 'NPA', 'Sait nager']);
    sheet.addRow(['Zoé', 'Blanc', new Date(Date.UTC(2014, 4, 6)), '0800', true]);
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());
    await page.getByLabel(words.importFile).setInputFiles({ name: 'membres.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: xlsx });
    await page.getByRole('button', { name: words.checkFile }).click();
    await page.getByText(words.wouldImport(1, 0, 0)).waitFor();
    await check(journey, 'dry run of a workbook');
    await page.getByRole('button', { name: words.importNow(1) }).click();
    await page.getByText(words.imported(1, 0, 0)).waitFor();
    expect((await members()).find((p) => p.lastname === 'Blanc')).toMatchObject({ firstname: 'Zoé', birthday: '2014-05-06', zip: '0800', can_swimm: true });
  });

  it('shows a file the service cannot read as its reason, in English', async () => {
    const journey = await leader('en', 1280);
    const { page, words } = journey;
    await visit(journey, `/groups/${troop}/import`, words.importInto('Biber'));
    await page.getByLabel(words.importFile).setInputFiles({ name: 'notes.csv', mimeType: 'text/csv', buffer: Buffer.from('First name,Last name,Shoe size\r\nMax,Meier,38\r\n') });
    await page.getByRole('button', { name: words.checkFile }).click();
    await page.getByText(translateApiMessage('The file has an unknown column: Shoe size.', 'en')).waitFor();
    // Leaving out the column it does not know: the rest is read, and the dry run says what was left out.
    await page.getByLabel(words.ignoreUnknownColumns).check();
    await page.getByRole('button', { name: words.checkFile }).click();
    await page.getByText(words.wouldImport(1, 0, 0)).waitFor();
    await page.getByText(words.ignoredColumns('Shoe size')).waitFor();
    expect((await members()).some((p) => p.lastname === 'Meier')).toBe(false);
    await check(journey, 'unknown column');
  });
});
