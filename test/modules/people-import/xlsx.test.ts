import { deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import JSZip from 'jszip';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readXlsx } from '../../../src/modules/people-import/xlsx.js';
import { hostOf, PASSWORD } from '../../helpers/app.js';
import { buildImportWorld, type ImportWorld } from './helpers.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
type Cell = ExcelJS.CellValue | { value: ExcelJS.CellValue; numFmt: string };

/** A workbook as exceljs writes it: one sheet of `rows`; a cell may carry its number format. */
async function workbook(rows: Cell[][], options: { date1904?: boolean; sheets?: string[] } = {}): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  if (options.date1904) book.properties.date1904 = true;
  const sheet = book.addWorksheet(options.sheets?.[0] ?? 'Members');
  for (const cells of rows) {
    const row = sheet.addRow(cells.map((cell) => (cell !== null && typeof cell === 'object' && 'numFmt' in cell ? cell.value : cell)));
    cells.forEach((cell, index) => {
      if (cell !== null && typeof cell === 'object' && 'numFmt' in cell) row.getCell(index + 1).numFmt = cell.numFmt;
    });
  }
  for (const name of options.sheets?.slice(1) ?? []) book.addWorksheet(name).addRow(['firstname', 'lastname']).commit?.();
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** The same zip with some parts replaced. */
async function rezip(body: Buffer, parts: Record<string, string | Buffer>, compression: 'DEFLATE' | 'STORE' = 'DEFLATE'): Promise<Buffer> {
  const zip = await JSZip.loadAsync(body);
  for (const [path, content] of Object.entries(parts)) zip.file(path, content);
  return zip.generateAsync({ type: 'nodebuffer', compression });
}

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

describe('POST /people/import with an XLSX workbook', () => {
  let w: ImportWorld;
  let into: string;
  beforeEach(async () => {
    w = await buildImportWorld();
    into = `group_id=${w.troop}&role_type=member`;
  });
  afterEach(() => w.t.close());

  const people = () => w.call('admin', 'GET', `/people?group_id=${w.troop}&role_type=member&limit=200`).then((r) => r.json().data.people);
  const importXlsx = (body: Buffer, query = into) => w.importCsv('admin', query, body, XLSX);

  it('reads the first sheet: date cells as days, numbers as their format shows them, booleans, formulas by their cached value', async () => {
    const body = await workbook([
      ['Vorname', 'Nachname', 'Geburtstag', 'PLZ', 'Telefon', 'Hausnummer', 'Vegetarier', 'Ort', 'E-Mail'],
      ['Mia', 'Kid', day('2014-03-04'), { value: 8001, numFmt: '00000' }, 41791234567, 12.5, true, { formula: 'UPPER("bern")', result: 'BERN' }, 'mia@example.com'],
      ['Noah', 'Kid', '04.03.2015', 3011, { value: 1234567, numFmt: '#,##0' }, { value: 7, numFmt: '"Nr. "0' }, 'nein', { formula: 'A1', result: undefined }, null],
    ]);
    const answer = await importXlsx(body);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().data).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const [mia, noah] = await people();
    expect(mia).toMatchObject({ firstname: 'Mia', birthday: '2014-03-04', zip: '08001', phonenumber: '41791234567', housenumber: '12.5', is_vegetarian: true, city: 'BERN', email: 'mia@example.com' });
    expect(noah).toMatchObject({ firstname: 'Noah', birthday: '2015-03-04', zip: '3011', phonenumber: '1,234,567', housenumber: 'Nr. 7', is_vegetarian: false, city: null });
  });

  it('reads date cells of the 1904 system', async () => {
    const body = await workbook([['firstname', 'lastname', 'birthday'], ['Mia', 'Kid', day('2014-03-04')]], { date1904: true });
    // exceljs writes the 1904 serial: 1462 days fewer than the 1900 one.
    const sheet = await (await JSZip.loadAsync(body)).file('xl/worksheets/sheet1.xml')!.async('string');
    expect(sheet).toContain('<v>40240</v>');
    expect((await readXlsx(body, 10)).rows[0]!.cells).toEqual(['Mia', 'Kid', '2014-03-04']);
  });

  it('makes an error value a row error, and takes the errors, limits, matching and all-or-nothing rule of CSV', async () => {
    const body = await workbook([
      ['firstname', 'lastname', 'email', 'city'],
      ['Mia', 'Kid', 'mia@example.com', { error: '#N/A' } as ExcelJS.CellErrorValue],
      ['Noah', 'Kid', 'not-an-address', { formula: 'VLOOKUP(1,A:A,2)', result: { error: '#REF!' } } as ExcelJS.CellFormulaValue],
      // Whom the row means is unknown until the e-mail is one: no word about the missing first name.
      [null, 'Kid', { error: '#N/A' } as ExcelJS.CellErrorValue, 'Bern'],
    ]);
    const answer = await importXlsx(body);
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({
      'row 2': ['The city cell holds the spreadsheet error #N/A.'],
      'row 3': ['The email field must be a valid email address.', 'The city cell holds the spreadsheet error #REF!.'],
      'row 4': ['The email cell holds the spreadsheet error #N/A.'],
    });
    expect(await w.countPeople()).toBe(2);
    const unknown = await importXlsx(await workbook([['Vorname', 'Nachname', 'Schuhgrösse'], ['Mia', 'Kid', 36]]));
    expect(unknown.json().errors).toEqual({ file: ['The file has an unknown column: Schuhgrösse.'] });
    const ignored = await importXlsx(await workbook([['Vorname', 'Nachname', 'Schuhgrösse'], ['Mia', 'Kid', 36]]), `${into}&ignore_unknown=true&details=true`);
    expect(ignored.json().data).toMatchObject({ created: 1, ignored_columns: ['Schuhgrösse'], rows: [{ row: 2, action: 'created' }] });
    const leader = await w.importCsv('leader', `group_id=${w.other}&role_type=member`, body, XLSX);
    expect(leader.statusCode).toBe(403);
  });

  it('reads the first sheet in tab order, not the first part of the zip', async () => {
    const body = await workbook([['firstname', 'lastname'], ['Mia', 'Kid']], { sheets: ['Members', 'Archive'] });
    const zip = await JSZip.loadAsync(body);
    const book = await zip.file('xl/workbook.xml')!.async('string');
    // Put the second sheet's tab first.
    const tabs = /<sheets>(<sheet [^>]*\/>)(<sheet [^>]*\/>)<\/sheets>/.exec(book);
    expect(tabs).not.toBeNull();
    const swapped = await rezip(body, { 'xl/workbook.xml': book.replace(tabs![0], `<sheets>${tabs![2]}${tabs![1]}</sheets>`) });
    expect((await readXlsx(body, 10)).rows.map((row) => row.cells)).toEqual([['Mia', 'Kid']]);
    expect((await readXlsx(swapped, 10)).rows).toEqual([]);
  });

  it('keeps rows numbered as the sheet numbers them, empty rows skipped', async () => {
    const body = await workbook([[], ['firstname', 'lastname'], ['Mia', 'Kid'], [], ['Noah', null]]);
    const answer = await importXlsx(body);
    expect(answer.json().errors).toEqual({ 'row 5': ['The lastname field is required.'] });
  });

  it('reads a sheet written by another program: inline strings, cells without references, styled empty cells after the header', async () => {
    const body = await workbook([['firstname', 'lastname']]);
    const sheet = (rows: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData></worksheet>`;
    const text = (value: string, reference = '') => `<c${reference === '' ? '' : ` r="${reference}"`} t="inlineStr"><is><t>${value}</t><rPh><t>reading aid</t></rPh></is></c>`;
    const rows = [
      `<row r="1">${text('Vorname')}${text('Nachname')}<c r="C1" s="1"/><c r="D1" s="1"/></row>`,
      `<row r="2">${text('Mia')}${text('Kid')}</row>`,
      `<row r="4">${text('Lea')}${text('Kid')}${text('Line 1_x000D_\nLine 2 _x005F_x0041_', 'D4')}</row>`,
      `<row r="3">${text('Noah')}${text('Kid')}${text('far away', 'XFD3')}</row>`,
    ].join('');
    const answer = await importXlsx(await rezip(body, { 'xl/worksheets/sheet1.xml': sheet(rows) }));
    expect(answer.json().errors).toEqual({ 'row 3': ['The row has more cells than the header has columns.'], 'row 4': ['The row has more cells than the header has columns.'] });
    const street = await importXlsx(await rezip(body, { 'xl/worksheets/sheet1.xml': sheet(`<row r="1">${text('Vorname')}${text('Nachname')}${text('Strasse')}</row><row r="2">${text('Lea')}${text('Kid')}${text('Line 1_x000D_\nLine 2 _x005F_x0041_')}</row>`) }));
    expect(street.json().data).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect((await people())[0]).toMatchObject({ firstname: 'Lea', street: 'Line 1\r\nLine 2 _x0041_' });
    // 20,000 rows, each with one cell at the last column: read in bounded time and memory.
    const wide = Array.from({ length: 20_000 }, (_, i) => `<row r="${i + 2}">${text('Mia')}${text('Kid')}<c r="XFD${i + 2}"/></row>`).join('');
    const started = Date.now();
    const table = await readXlsx(await rezip(body, { 'xl/worksheets/sheet1.xml': sheet(`<row r="1">${text('Vorname')}${text('Nachname')}</row>${wide}`) }), 20_000);
    expect(table.rows).toHaveLength(20_000);
    expect(table.rows[0]).toMatchObject({ cells: ['Mia', 'Kid'], overflowing: false });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses more than IMPORT_MAX_ROWS data rows', async () => {
    const rows: Cell[][] = [['firstname', 'lastname'], ...Array.from({ length: 20_001 }, (_, i) => [`A${i}`, 'Kid'])];
    const answer = await importXlsx(await workbook(rows));
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({ file: ['The file must not have more than 20000 rows.'] });
  });

  it('round trip: the XLSX export imports into a fresh tenant, which exports the same CSV apart from id, created_at, updated_at', async () => {
    const add = (person: object) => w.call('admin', 'POST', '/people', { ...person, membership: { group_id: w.troop, role_type: 'member' } });
    await add({ firstname: 'Mia', lastname: 'Kid', email: 'Mia@Example.com', phonenumber: '+41 31 123 45 67', street: 'Line 1\nLine 2; "x", y', birthday: '2015-03-04', is_vegetarian: true, gender_id: 2, zip: '0042' });
    await add({ firstname: '=cmd|calc', lastname: 'Émile', zip: '-3000', city: '@town', can_swimm: true, type_id: 0 });
    await add({ firstname: 'Noah', lastname: 'émile', housenumber: "'quoted", phonenumber_mobile: '\tTab' });
    const selection = `group_id=${w.troop}&role_type=member`;
    const exported = await w.t.app.inject({
      method: 'GET', url: `/api/people?${selection}&format=xlsx`, headers: { host: hostOf('demo'), authorization: `Bearer ${w.tokens.admin}` },
    });
    expect(exported.statusCode).toBe(200);

    await w.t.addTenant('fresh');
    const admin = await w.t.addUser('fresh', { username: 'boss' });
    await w.t.grant('fresh', admin.id, await w.t.rootGroupId('fresh'), 'admin');
    const token = await w.t.login('fresh', 'boss', PASSWORD);
    const headers = { host: hostOf('fresh'), authorization: `Bearer ${token}`, accept: 'application/json' };
    const group = await w.t.app.inject({ method: 'POST', url: '/api/groups', headers, payload: { parent_id: await w.t.rootGroupId('fresh'), name: 'Troop' } });
    const troop = group.json().data.group.id as number;
    const imported = await w.t.app.inject({
      method: 'POST', url: `/api/people/import?group_id=${troop}&role_type=member`, headers: { ...headers, 'content-type': XLSX }, payload: exported.rawPayload,
    });
    expect(imported.json().data, imported.body).toEqual({ created: 3, updated: 0, unchanged: 0 });
    const withoutIds = (text: string) => (parse(text) as string[][]).map((cells) => cells.filter((_, column) => ![0, 15, 16].includes(column)));
    const first = await w.exportCsv('admin', selection);
    const second = await w.exportCsv('admin', `group_id=${troop}&role_type=member`, 'fresh', token);
    expect(withoutIds(second.body)).toEqual(withoutIds(first.body));
  });

  describe('hostile files', () => {
    const unreadable = { file: ['The file is not a readable XLSX workbook.'] };

    it('never answers 5xx: random bytes, and a workbook with bytes changed or cut anywhere', async () => {
      const body = await workbook([['firstname', 'lastname', 'birthday'], ['Mia', 'Kid', day('2014-03-04')]]);
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), fc.nat(body.length - 1), fc.integer({ min: 1, max: 255 }), fc.nat(body.length), async (random, at, xor, cut) => {
          const changed = Buffer.from(body);
          changed[at]! ^= xor;
          for (const attempt of [Buffer.from(random), changed, body.subarray(0, cut)]) {
            const answer = await importXlsx(attempt, `${into}&dry_run=true`);
            expect([200, 422], answer.body.slice(0, 200)).toContain(answer.statusCode);
          }
        }),
        { numRuns: 60 },
      );
    });

    it('refuses a part that inflates beyond the caps (a zip bomb), quickly', async () => {
      const body = await workbook([['firstname', 'lastname']]);
      // 110 MiB of zeros inside a shared string: about 110 KiB compressed. Read whole, it would be
      // the name of the first column (an unknown column, another answer).
      const zeros = Buffer.alloc(110 * 1024 * 1024, '0');
      const bomb = await rezip(body, { 'xl/sharedStrings.xml': Buffer.concat([Buffer.from('<sst><si><t>'), zeros, Buffer.from('</t></si><si><t>lastname</t></si></sst>')]) });
      expect(bomb.length).toBeLessThan(1024 * 1024);
      const started = Date.now();
      const answer = await importXlsx(bomb);
      expect(answer.statusCode).toBe(422);
      expect(answer.json().errors).toEqual(unreadable);
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('refuses a part that inflates beyond 100 times its compressed size, even far below 100 MiB', async () => {
      const body = await workbook([['firstname', 'lastname']]);
      const padded = `<sst><si><t>${'0'.repeat(2 * 1024 * 1024)}</t></si><si><t>lastname</t></si></sst>`;
      expect(deflateRawSync(padded).length * 100).toBeLessThan(padded.length);
      expect((await importXlsx(await rezip(body, { 'xl/sharedStrings.xml': padded }))).json().errors).toEqual(unreadable);
      // The same part stored (not compressed) is read.
      const table = await readXlsx(await rezip(body, { 'xl/sharedStrings.xml': padded }, 'STORE'), 10);
      expect(table.header[0]).toHaveLength(2 * 1024 * 1024);
    });

    it('stops at 100 MiB inflated in all, whatever the ratio', async () => {
      const body = await workbook([['firstname', 'lastname']]);
      const strings = (size: number) => `<sst><si><t>${'0'.repeat(size)}</t></si><si><t>lastname</t></si></sst>`;
      // Stored, not compressed: the ratio is 1, only the total counts.
      const within = await readXlsx(await rezip(body, { 'xl/sharedStrings.xml': strings(99 * 1024 * 1024) }, 'STORE'), 10);
      expect(within.header[1]).toBe('lastname');
      await expect(readXlsx(await rezip(body, { 'xl/sharedStrings.xml': strings(100 * 1024 * 1024) }, 'STORE'), 10)).rejects.toThrow('The file is not a readable XLSX workbook.');
    });

    it('refuses a DOCTYPE in any part it reads', async () => {
      const body = await workbook([['firstname', 'lastname'], ['Mia', 'Kid']]);
      const zip = await JSZip.loadAsync(body);
      const sheet = await zip.file('xl/worksheets/sheet1.xml')!.async('string');
      const withDoctype = sheet.replace('?>', '?><!DOCTYPE worksheet [<!ENTITY lol "lol">]>');
      expect(withDoctype).toContain('<!DOCTYPE');
      const answer = await importXlsx(await rezip(body, { 'xl/worksheets/sheet1.xml': withDoctype }));
      expect(answer.statusCode).toBe(422);
      expect(answer.json().errors).toEqual(unreadable);
      const book = await zip.file('xl/workbook.xml')!.async('string');
      expect((await importXlsx(await rezip(body, { 'xl/workbook.xml': book.replace('?>', '?><!DOCTYPE workbook>') }))).json().errors).toEqual(unreadable);
    });

    it('refuses an encrypted workbook (an OLE compound file), more than 1,000 zip entries, and bodies that are no workbook', async () => {
      const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(4096)]);
      expect((await importXlsx(ole)).json().errors).toEqual(unreadable);
      const body = await workbook([['firstname', 'lastname'], ['Mia', 'Kid']]);
      const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`xl/media/${i}.txt`, 'x']));
      expect((await importXlsx(await rezip(body, many))).json().errors).toEqual(unreadable);
      for (const other of [Buffer.alloc(0), Buffer.from('firstname,lastname\r\nMia,Kid\r\n'), body.subarray(0, body.length - 100), await rezip(body, { 'xl/workbook.xml': '<workbook>' })]) {
        const answer = await importXlsx(other);
        expect(answer.statusCode).toBe(422);
        expect(answer.json().errors).toEqual(unreadable);
      }
      expect(await w.countPeople()).toBe(2);
    });
  });
});
