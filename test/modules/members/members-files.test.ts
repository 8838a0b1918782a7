import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XLSX_MEDIA_TYPE } from '../../../src/lib/xlsx.js';
import { setTenantTimezone } from '../../../src/modules/tenants/rules.js';
import { hostOf, PASSWORD } from '../../helpers/app.js';
import { buildMembersWorld, firstnames, type MembersWorld } from './world.js';

const COLUMNS = [
  'id', 'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile', 'street',
  'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'created_at', 'updated_at', 'birthday', 'has_login', 'roles',
];

const today = () => new Date().toISOString().slice(0, 10);
const todayIn = (timeZone: string) => {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date());
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
};

async function workbookOf(body: Buffer): Promise<ExcelJS.Worksheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as unknown as ArrayBuffer);
  expect(workbook.worksheets).toHaveLength(1);
  return workbook.worksheets[0]!;
}

describe('GET /groups/{id}/members as a file', () => {
  let w: MembersWorld;
  beforeAll(async () => {
    w = await buildMembersWorld();
  }, 60_000);
  afterAll(() => w?.t.close());

  const list = (query: string, headers: Record<string, string> = {}) => w.call('leader', `/groups/${w.groups.region}/members${query}`, headers);

  it('answers CSV for format=csv or Accept: text/csv: the people columns then roles, one row a person, in the list order', async () => {
    const json = await list('?below=true&sort=role&limit=200');
    const answer = await list('?below=true&sort=role&format=csv');
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="members-${w.groups.region}-${today()}.csv"`);
    expect(answer.body.split('\r\n')[0]).toBe(COLUMNS.join(','));
    const rows = parse(answer.body, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => Number(row.id))).toEqual(json.json().data.members.map((item: { person: { id: number } }) => item.person.id));
    const byName = (firstname: string) => rows.find((row) => row.firstname === firstname)!;
    // Each role type once, strongest first.
    expect(byName('Zoe').roles).toBe('assistant; member');
    expect(byName('Max').roles).toBe('helper; member');
    expect(byName('Anna').roles).toBe('member');
    expect(byName('Lea')).toMatchObject({ roles: 'leader', username: 'leader', has_login: 'true' });
    // The CSV's neutralisation of formulas.
    expect(byName("'=cmd")).toMatchObject({ lastname: 'Formula', phonenumber: "'+41 31 000 00 00", is_vegetarian: 'true', birthday: '' });
    const accepted = await list('?below=true&sort=role', { accept: 'text/csv' });
    expect(accepted.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(accepted.body).toBe(answer.body);
  });

  it('ignores limit and cursor for a file: every page comes at once', async () => {
    const whole = (await list('?below=true&format=csv')).body;
    const limited = await list('?below=true&format=csv&limit=1&cursor=not-a-cursor');
    expect(limited.statusCode).toBe(200);
    expect(limited.body).toBe(whole);
    expect(whole.trim().split('\r\n')).toHaveLength(1 + 11);
  });

  it('lets format win over Accept, and refuses a format the list does not offer', async () => {
    const json = await list('?format=json', { accept: 'text/csv' });
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(firstnames(json)).toEqual(['Lea']);
    const xlsx = await list('?format=xlsx', { accept: 'text/csv' });
    expect(xlsx.headers['content-type']).toBe(XLSX_MEDIA_TYPE);
    const refused = await list('?format=pdf', { accept: 'text/csv' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({ success: false, message: 'The selected format is invalid.', errors: { format: ['The selected format is invalid.'] } });
    // Refusals are JSON whatever the file asked for.
    const forbidden = await w.call('outsider', `/groups/${w.groups.region}/members?format=xlsx`);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().message).toBe('This action is unauthorized.');
  });

  it('answers XLSX for format=xlsx or its Accept type: bold frozen header, typed cells, text never a formula', async () => {
    const answer = await list('?below=true&format=xlsx');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe(XLSX_MEDIA_TYPE);
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="members-${w.groups.region}-${today()}.xlsx"`);
    const sheet = await workbookOf(answer.rawPayload);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    const header = sheet.getRow(1);
    expect((header.values as unknown[]).slice(1)).toEqual(COLUMNS);
    header.eachCell((cell) => expect(cell.font?.bold, String(cell.value)).toBe(true));
    expect(sheet.rowCount).toBe(1 + 11);
    const csv = parse((await list('?below=true&format=csv')).body, { columns: true }) as Record<string, string>[];
    const rows = Array.from({ length: 11 }, (_, index) => sheet.getRow(index + 2));
    expect(rows.map((row) => row.getCell(1).value)).toEqual(csv.map((row) => Number(row.id)));
    const cellOf = (row: ExcelJS.Row, column: string) => row.getCell(COLUMNS.indexOf(column) + 1);

    const formula = rows.find((row) => cellOf(row, 'lastname').value === 'Formula')!;
    // Text is a string cell as given: no formula, no leading '.
    for (const column of ['firstname', 'phonenumber']) {
      expect(cellOf(formula, column).type, column).toBe(ExcelJS.ValueType.String);
      expect(cellOf(formula, column).formula, column).toBeUndefined();
    }
    expect(cellOf(formula, 'firstname').value).toBe('=cmd');
    expect(cellOf(formula, 'phonenumber').value).toBe('+41 31 000 00 00');
    expect(cellOf(formula, 'is_vegetarian').value).toBe(true);
    expect(cellOf(formula, 'is_vegetarian').type).toBe(ExcelJS.ValueType.Boolean);
    expect(cellOf(formula, 'id').type).toBe(ExcelJS.ValueType.Number);
    expect(cellOf(formula, 'birthday').type).toBe(ExcelJS.ValueType.Null);
    expect(cellOf(formula, 'email').type).toBe(ExcelJS.ValueType.Null);

    const pat = rows.find((row) => cellOf(row, 'firstname').value === 'Pat')!;
    expect(cellOf(pat, 'birthday').type).toBe(ExcelJS.ValueType.Date);
    expect(cellOf(pat, 'birthday').value).toEqual(new Date('2013-03-03T00:00:00Z'));
    expect(cellOf(pat, 'birthday').numFmt).toBe('yyyy-mm-dd');
    const created = cellOf(pat, 'created_at');
    expect(created.type).toBe(ExcelJS.ValueType.Date);
    const csvPat = csv.find((row) => row.firstname === 'Pat')!;
    expect(Math.abs((created.value as Date).getTime() - new Date(csvPat.created_at!).getTime())).toBeLessThan(1000);
    expect(cellOf(pat, 'has_login').value).toBe(false);
    expect(cellOf(pat, 'roles').value).toBe('member');
    const zoe = rows.find((row) => cellOf(row, 'firstname').value === 'Zoe')!;
    expect(cellOf(zoe, 'roles').value).toBe('assistant; member');

    const accepted = await list('?below=true', { accept: XLSX_MEDIA_TYPE });
    expect(accepted.headers['content-type']).toBe(XLSX_MEDIA_TYPE);
    expect((await workbookOf(accepted.rawPayload)).rowCount).toBe(1 + 11);
  });

  it("names the file after the tenant's date", async () => {
    // UTC+14 and UTC-11: at every moment one of the two dates differs from the UTC date.
    for (const [slug, zone] of [['east', 'Pacific/Kiritimati'], ['west', 'Pacific/Pago_Pago']] as const) {
      await w.t.addTenant(slug);
      await setTenantTimezone(w.t.storage, slug, zone);
      const root = await w.t.rootGroupId(slug);
      const admin = await w.t.addUser(slug, { username: 'admin' });
      await w.t.grant(slug, admin.id, root, 'admin');
      const token = await w.t.login(slug, 'admin', PASSWORD);
      const answer = await w.t.app.inject({ method: 'GET', url: `/api/groups/${root}/members?format=xlsx`, headers: { host: hostOf(slug), authorization: `Bearer ${token}` } });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.headers['content-disposition'], zone).toBe(`attachment; filename="members-${root}-${todayIn(zone)}.xlsx"`);
    }
  });

  it('writes an empty list as its header row alone', async () => {
    const csv = await list('?role_type=nobody&format=csv');
    expect(csv.body).toBe(`${COLUMNS.join(',')}\r\n`);
    const sheet = await workbookOf((await list('?role_type=nobody&format=xlsx')).rawPayload);
    expect(sheet.rowCount).toBe(1);
  });
});
