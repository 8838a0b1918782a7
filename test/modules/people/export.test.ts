import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { sortKey } from '../../../src/lib/sort-key.js';
import { hostOf } from '../../helpers/app.js';
import { buildImportWorld, type ImportWorld } from '../people-import/helpers.js';

const COLUMNS = [
  'id', 'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile', 'street',
  'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'created_at', 'updated_at', 'birthday', 'has_login',
];

/** Inserts `count` people with a membership in the group, straight into the tables, in batches. */
async function addMembers(w: ImportWorld, group: number, count: number, prefix = 'P'): Promise<void> {
  const db = w.t.storage.tenantDb('demo');
  const now = toDbTimestamp(new Date());
  const BATCH = 500;
  for (let start = 0; start < count; start += BATCH) {
    const people = Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => {
      const lastname = `${prefix}${String(start + i).padStart(6, '0')}`;
      return {
        username: null, email: null, firstname: 'Member', lastname, lastname_key: sortKey(lastname), firstname_key: 'member',
        gender_id: null, type_id: null, phonenumber: '+41 31 000 00 00', phonenumber_mobile: null, street: 'Street, with comma', housenumber: '1',
        zip: '3000', city: 'Bern', is_vegetarian: 0 as const, can_swimm: 1 as const, birthday: '2010-01-01', password: null, is_active: 1 as const, created_at: now, updated_at: now,
      };
    });
    const ids = await db.insertInto('users').values(people).returning('id').execute();
    await db
      .insertInto('memberships')
      .values(ids.map(({ id }) => ({ person_id: id, group_id: group, role_type: 'member', label: null, start_on: '2000-01-01', end_on: null, created_at: now, updated_at: now })))
      .execute();
  }
}

describe('GET /people as a file (CSV, XLSX)', () => {
  let w: ImportWorld;
  beforeEach(async () => {
    w = await buildImportWorld();
  });
  afterEach(() => w.t.close());

  it('answers the visible list as a CSV download: person fields in JSON order, CRLF, no BOM, formulas neutralised', async () => {
    await w.call('admin', 'POST', '/people', {
      firstname: '=HYPERLINK("x")', lastname: 'Kid', phonenumber: '+41 31 123 45 67', street: 'Line 1\nLine 2, "quoted"', is_vegetarian: true,
      membership: { group_id: w.troop, role_type: 'member' },
    });
    await w.call('admin', 'POST', '/people', { firstname: 'Elsewhere', lastname: 'Kid', membership: { group_id: w.other, role_type: 'member' } });
    const answer = await w.exportCsv('leader');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    const today = new Date().toISOString().slice(0, 10);
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="people-${today}.csv"`);
    expect(answer.rawPayload[0]).not.toBe(0xef);
    expect(answer.body.split('\r\n')[0]).toBe(COLUMNS.join(','));
    const rows = parse(answer.body, { columns: true }) as Record<string, string>[];
    // The leader sees themself and the troop's members, not the other troop.
    expect(rows.map((row) => row.firstname).sort()).toEqual(["'=HYPERLINK(\"x\")", 'Alice']);
    const kid = rows.find((row) => row.lastname === 'Kid')!;
    expect(kid).toMatchObject({
      phonenumber: "'+41 31 123 45 67", street: 'Line 1\nLine 2, "quoted"', is_vegetarian: 'true', can_swimm: 'false', email: '', username: '',
      birthday: '', has_login: 'false', gender_id: '',
    });
    expect(rows.find((row) => row.firstname === 'Alice')).toMatchObject({ username: 'leader', has_login: 'true' });
    const json = (await w.call('leader', 'GET', '/people')).json().data.people;
    expect(rows.map((row) => Number(row.id))).toEqual(json.map((person: { id: number }) => person.id));
  });

  it('quotes every cell with a line break, a lone LF or CR too, so that each person stays one row for any reader', async () => {
    await w.call('admin', 'POST', '/people', {
      firstname: 'Mia', lastname: 'Kid', street: 'Main street 1\nBack house', city: 'Bern\rOld town', zip: '\r3000',
      membership: { group_id: w.troop, role_type: 'member' },
    });
    const body = (await w.exportCsv('admin', `group_id=${w.troop}&role_type=member`)).body;
    expect(body).toContain(',"Main street 1\nBack house",');
    expect(body).toContain(',"\'\r3000","Bern\rOld town",');
    // Outside quotes, the only line ends are the CRLF after each row (header and one person).
    const unquoted = body.replace(/"(?:[^"]|"")*"/g, '');
    expect(unquoted.match(/[\r\n]/g)).toEqual(['\r', '\n', '\r', '\n']);
    const [row] = parse(body, { columns: true }) as Record<string, string>[];
    expect(row).toMatchObject({ street: 'Main street 1\nBack house', city: 'Bern\rOld town', zip: "'\r3000" });
  });

  it('applies the filters of the JSON list, every page at once, in the same order', async () => {
    await addMembers(w, w.troop, 1234);
    await addMembers(w, w.other, 10, 'O');
    const answer = await w.exportCsv('admin', `group_id=${w.troop}&role_type=member&limit=5`);
    const rows = parse(answer.body, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(1234);
    expect(rows[0]!.lastname).toBe('P000000');
    expect(rows[1233]!.lastname).toBe('P001233');
    const byId = parse((await w.exportCsv('admin', `group_id=${w.troop}&sort=-updated_at&q=P00012`)).body, { columns: true }) as Record<string, string>[];
    expect(byId).toHaveLength(10);
    expect(await w.exportCsv('admin', 'group_id=999999').then((r) => r.statusCode)).toBe(404);
    expect(await w.exportCsv('admin', 'nonsense=1').then((r) => r.statusCode)).toBe(422);
  });

  it('refuses a filter that is no date with 422 before anything is streamed, and keeps serving', async () => {
    const leapSecond = await w.exportCsv('leader', `updated_since=${encodeURIComponent('2026-12-31T23:59:60Z')}`);
    expect(leapSecond.statusCode).toBe(422);
    expect(leapSecond.json().errors).toEqual({ updated_since: ['The updated since field must be a valid date.'] });
    expect((await w.exportCsv('leader')).statusCode).toBe(200);
  });

  it('needs people:read like the JSON list', async () => {
    const limited = (await w.call('admin', 'POST', '/tokens', { name: 'x', abilities: ['user:read'] })).json().data.plainTextToken as string;
    const answer = await w.exportCsv('admin', '', 'demo', limited);
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toEqual({ success: false, message: 'Invalid ability provided.' });
  });

  it('answers XLSX for format=xlsx (or its Accept), the CSV for format=csv, and format wins over Accept', async () => {
    await w.call('admin', 'POST', '/people', {
      firstname: '=cmd|calc', lastname: 'Kid', birthday: '2014-03-04', zip: '08001', is_vegetarian: true, membership: { group_id: w.troop, role_type: 'member' },
    });
    const get = (query: string, accept = 'application/json') =>
      w.t.app.inject({ method: 'GET', url: `/api/people?${query}`, headers: { host: hostOf('demo'), accept, authorization: `Bearer ${w.tokens.leader}` } });
    const csv = await get('format=csv&sort=id');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.body).toBe((await w.exportCsv('leader', 'sort=id')).body);
    const xlsx = await get('format=xlsx&sort=id', 'text/csv');
    expect(xlsx.statusCode).toBe(200);
    expect(xlsx.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(xlsx.headers['content-disposition']).toBe(`attachment; filename="people-${new Date().toISOString().slice(0, 10)}.xlsx"`);
    const byAccept = await get('sort=id', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(byAccept.headers['content-disposition']).toMatch(/\.xlsx"$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getRow(1).values).toEqual([undefined, ...COLUMNS]);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    sheet.getRow(1).eachCell((header) => expect(header.font?.bold, String(header.value)).toBe(true));
    const rows = parse(csv.body, { columns: true }) as Record<string, string>[];
    expect(sheet.rowCount).toBe(rows.length + 1);
    const kid = sheet.getRow(rows.findIndex((row) => row.lastname === 'Kid') + 2);
    const cell = (name: string) => kid.getCell(COLUMNS.indexOf(name) + 1).value;
    expect(cell('firstname')).toBe('=cmd|calc');
    expect(kid.getCell(COLUMNS.indexOf('firstname') + 1).formula).toBeUndefined();
    expect(cell('zip')).toBe('08001');
    expect(cell('is_vegetarian')).toBe(true);
    expect(cell('birthday')).toEqual(new Date(Date.UTC(2014, 2, 4)));
    expect(cell('id')).toBe(Number(rows.find((row) => row.lastname === 'Kid')!.id));
    const refused = await get('format=pdf');
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors).toEqual({ format: ['The selected format is invalid.'] });
  });

  const PEOPLE = Number(process.env.EXPORT_PEOPLE ?? 100_000);
  it('streams 100,000 people in flat memory', { timeout: 600_000 }, async () => {
    const insertStarted = performance.now();
    await addMembers(w, w.troop, PEOPLE);
    console.log(`inserted ${PEOPLE} in ${((performance.now() - insertStarted) / 1000).toFixed(1)} s`);
    const address = await w.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = w.t.app.server.address() as AddressInfo;
    expect(address).toContain(String(port));
    // What the server holds, not the garbage it has yet to collect: the heap after a full collection.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed;
    let nextSample = 10_000;
    const started = performance.now();
    const { bytes, lines } = await new Promise<{ bytes: number; lines: number }>((resolve, reject) => {
      const request = get(
        { port, host: '127.0.0.1', path: `/api/people?group_id=${w.troop}${process.env.EXPORT_QUERY ?? ""}`, headers: { accept: 'text/csv', host: hostOf('demo'), authorization: `Bearer ${w.tokens.admin}` } },
        (response) => {
          let total = 0;
          let count = 0;
          response.on('data', (chunk: Buffer) => {
            total += chunk.length;
            for (const byte of chunk) if (byte === 0x0a) count += 1;
            peakRss = Math.max(peakRss, process.memoryUsage.rss());
            if (count >= nextSample) {
              nextSample += 10_000;
              gc();
              peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
            }
          });
          response.on('end', () => resolve({ bytes: total, lines: count }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
    });
    const seconds = (performance.now() - started) / 1000;
    expect(lines).toBe(PEOPLE + 2); // the header, the people, and the troop's leader
    const mb = (n: number) => Math.round(n / 1024 / 1024);
    console.log(`export of ${PEOPLE} people: ${mb(bytes)} MB in ${seconds.toFixed(1)} s; rss ${mb(before.rss)} -> peak ${mb(peakRss)} MB, heap after gc ${mb(before.heapUsed)} -> peak ${mb(peakHeap)} MB`);
    
    // Held whole, the rows alone would take well over 100 MB of heap; a page of them takes a few.
    expect(peakHeap - before.heapUsed).toBeLessThan(24 * 1024 * 1024);
  });
});
