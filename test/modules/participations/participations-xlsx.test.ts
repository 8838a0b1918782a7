import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, CSV_COLUMNS, daysFromNow, type World } from '../../helpers/events.js';
import { XLSX_MEDIA_TYPE } from '../../../src/lib/xlsx.js';

const XLSX_COLUMNS = [...CSV_COLUMNS, 'guardians'];

/** The participant list as an XLSX file: managers only, the CSV's columns and the guardians. */
describe("an event's participant list as XLSX", () => {
  let w: World;
  let eventId: number;
  const people: Record<string, number> = {};
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
    people.Anna = await w.person(w.troopA, 'Anna', 'Arnold', { is_vegetarian: true });
    people.Zoe = await w.person(w.troopA, 'Zoe', 'Zeller');
    await w.call('admin', 'PATCH', `/people/${w.ids.parent}`, { phonenumber: '+41 31 111 11 11', phonenumber_mobile: '+41 79 123 45 67' });
    // Anna has two guardians; the second has no numbers.
    await w.call('admin', 'POST', `/people/${people.Anna}/guardians`, { guardian_id: w.ids.parent });
    await w.call('admin', 'POST', `/people/${people.Anna}/guardians`, { guardian_id: w.ids.outsider });
    const event = await w.event('regionleader', { group_id: w.region, name: 'Camp', starts_at: daysFromNow(10), ends_at: daysFromNow(12), capacity: 2, waiting_list: true });
    eventId = event.id;
    await w.register('regionleader', eventId, { person_id: people.Anna, notes: '=HYPERLINK("x")' });
    await w.register('regionleader', eventId, { person_id: w.ids.child });
    await w.register('regionleader', eventId, { person_id: people.Zoe });
  }, 60_000);
  afterAll(() => w?.t.close());

  const list = (query: string, who = 'regionleader', headers: Record<string, string> = {}) =>
    w.call(who, 'GET', `/events/${eventId}/participations${query}`, undefined, headers);

  async function sheetOf(body: Buffer): Promise<ExcelJS.Worksheet> {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(body as unknown as ArrayBuffer);
    return workbook.worksheets[0]!;
  }

  it('answers format=xlsx with the CSV columns then the guardians, in the list order, typed and never a formula', async () => {
    const answer = await list('?format=xlsx');
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['content-type']).toBe(XLSX_MEDIA_TYPE);
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="participations-${eventId}.xlsx"`);
    const sheet = await sheetOf(answer.rawPayload);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(XLSX_COLUMNS);
    sheet.getRow(1).eachCell((cell) => expect(cell.font?.bold).toBe(true));
    const csv = parse((await list('', 'regionleader', { accept: 'text/csv' })).body, { columns: true }) as Record<string, string>[];
    expect(sheet.rowCount).toBe(1 + csv.length);
    const rows = csv.map((_, index) => sheet.getRow(index + 2));
    const cell = (row: ExcelJS.Row, column: string) => row.getCell(XLSX_COLUMNS.indexOf(column) + 1);
    expect(rows.map((row) => cell(row, 'id').value)).toEqual(csv.map((row) => Number(row.id)));

    const anna = rows.find((row) => cell(row, 'firstname').value === 'Anna')!;
    expect(cell(anna, 'guardians').value).toBe('Outsider Scout; Parent Scout (+41 31 111 11 11, +41 79 123 45 67)');
    expect([cell(anna, 'notes').type, cell(anna, 'notes').value, cell(anna, 'notes').formula]).toEqual([ExcelJS.ValueType.String, '=HYPERLINK("x")', undefined]);
    expect([cell(anna, 'is_vegetarian').type, cell(anna, 'is_vegetarian').value]).toEqual([ExcelJS.ValueType.Boolean, true]);
    expect([cell(anna, 'person_id').type, cell(anna, 'person_id').value]).toEqual([ExcelJS.ValueType.Number, people.Anna]);
    expect(cell(anna, 'attended').type).toBe(ExcelJS.ValueType.Null);
    expect(cell(anna, 'waitlist_position').type).toBe(ExcelJS.ValueType.Null);
    const charlie = rows.find((row) => cell(row, 'firstname').value === 'Charlie')!;
    expect(cell(charlie, 'guardians').value).toBe('Parent Scout (+41 31 111 11 11, +41 79 123 45 67)');
    // Zoe waits: her place is a number; she has no guardian.
    const zoe = rows.find((row) => cell(row, 'firstname').value === 'Zoe')!;
    expect([cell(zoe, 'state').value, cell(zoe, 'waitlist_position').type, cell(zoe, 'waitlist_position').value]).toEqual(['waitlisted', ExcelJS.ValueType.Number, 1]);
    expect(cell(zoe, 'guardians').type).toBe(ExcelJS.ValueType.Null);
  });

  it('answers the XLSX Accept type alike; format wins over Accept', async () => {
    const accepted = await list('', 'regionleader', { accept: XLSX_MEDIA_TYPE });
    expect(accepted.headers['content-type']).toBe(XLSX_MEDIA_TYPE);
    expect((await sheetOf(accepted.rawPayload)).rowCount).toBe(4);
    const json = await list('?format=json', 'regionleader', { accept: XLSX_MEDIA_TYPE });
    expect(json.json().data.participations).toHaveLength(3);
    const csv = await list('?format=csv', 'regionleader', { accept: XLSX_MEDIA_TYPE });
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
  });

  it('keeps the CSV as it was: its name, its columns, its neutralisation', async () => {
    const csv = await list('?format=csv');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="event-${eventId}-participants.csv"`);
    expect(csv.body.split('\r\n')[0]).toBe(CSV_COLUMNS.join(','));
    expect(csv.body).toContain(`'=HYPERLINK(""x"")`);
    expect(csv.body).toBe((await list('', 'regionleader', { accept: 'text/csv' })).body);
  });

  it('is for managers only, and refuses a format it does not offer', async () => {
    const own = await w.call('member', 'POST', `/events/${eventId}/participations`, { person_id: w.ids.member });
    expect(own.statusCode, own.body).toBe(201);
    // Refused before anything else of the request is looked at: a cursor that is no cursor changes nothing.
    for (const query of ['?format=xlsx', '?format=csv', '?format=csv&cursor=garbage']) {
      const refused = await list(query, 'member');
      expect(refused.statusCode, query).toBe(403);
      expect(refused.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    }
    expect((await list('', 'member', { accept: XLSX_MEDIA_TYPE })).statusCode).toBe(403);
    const vcf = await list('?format=vcf');
    expect(vcf.statusCode).toBe(422);
    expect(vcf.json().errors).toEqual({ format: ['The selected format is invalid.'] });
  });
});
