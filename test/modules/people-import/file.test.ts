import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildImportWorld, csv, type ImportWorld } from './helpers.js';

describe('the CSV file of POST /people/import', () => {
  let w: ImportWorld;
  let into: string;
  beforeEach(async () => {
    w = await buildImportWorld();
    into = `group_id=${w.troop}&role_type=member`;
  });
  afterEach(() => w.t.close());

  const people = () => w.call('admin', 'GET', `/people?group_id=${w.troop}&role_type=member&limit=200`).then((r) => r.json().data.people);

  it('reads a BOM, semicolons, quoted separators, quotes and line breaks', async () => {
    const body = `\uFEFF${csv('firstname;lastname;street;city', 'Mia;Kid;"Main street 1; back door";"Bern, ""old town"""', '"Noah";Kid;"Line 1', 'Line 2";')}`;
    const answer = await w.importCsv('admin', into, body);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().data).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const [mia, noah] = await people();
    expect(mia).toMatchObject({ street: 'Main street 1; back door', city: 'Bern, "old town"' });
    expect(noah).toMatchObject({ firstname: 'Noah', street: 'Line 1\r\nLine 2', city: null });
  });

  it('counts rows as a spreadsheet shows them: a quoted line break stays in its row, blank rows count', async () => {
    const body = csv('firstname,lastname,email', 'Mia,Kid,"two', 'lines"', '', 'Noah,Kid,bad');
    const answer = await w.importCsv('admin', into, body);
    expect(answer.json().errors).toEqual({ 'row 2': ['The email field must be a valid email address.'], 'row 4': ['The email field must be a valid email address.'] });
  });

  it("stores formula-looking text as given, and strips the export's leading quote", async () => {
    const body = csv('firstname,lastname,phonenumber,city', "'=1+2,Kid,'+41 31 123 45 67,=SUM(A1)", "'plain,Kid,@home,'-x");
    expect((await w.importCsv('admin', into, body)).statusCode).toBe(200);
    const [first, second] = await people();
    expect([first.firstname, first.phonenumber, first.city]).toEqual(["'plain", '@home', '-x']);
    expect([second.firstname, second.phonenumber, second.city]).toEqual(['=1+2', '+41 31 123 45 67', '=SUM(A1)']);
    const exported = (await w.exportCsv('admin', `${into}`)).body;
    expect(exported).toContain(",'=1+2,Kid,");
    expect(exported).toContain(",'+41 31 123 45 67,");
  });

  it('refuses unknown, password and unnamed columns by name, and accepts the columns it ignores', async () => {
    const unknown = await w.importCsv('admin', into, csv('firstname,lastname,shoe_size,Password,', 'Mia,Kid,42,secret,'));
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors).toEqual({
      file: ['The file has an unknown column: shoe_size.', 'The password column cannot be imported.', 'Column 5 of the header has no name.'],
    });
    const ignored = await w.importCsv('admin', into, csv('id,firstname,lastname,has_login,created_at,updated_at', '99,Mia,Kid,true,x,y'));
    expect(ignored.json().data).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect((await people())[0].id).not.toBe(99);
  });

  it('refuses more than IMPORT_MAX_ROWS data rows on `file`, and an empty file', async () => {
    const rows = Array.from({ length: 20_001 }, (_, i) => `A${i},Kid`);
    const answer = await w.importCsv('admin', into, csv('firstname,lastname', ...rows));
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({ file: ['The file must not have more than 20000 rows.'] });
    expect((await w.importCsv('admin', into, '')).json().errors).toEqual({ file: ['The file must have a header row.'] });
  });

  it('numbers rows as a spreadsheet does, empty lines counted, and skips rows without data', async () => {
    const numbered = await w.importCsv('admin', `${into}&dry_run=true`, csv('', '', 'firstname,lastname', '', ' , ', ',', 'Mia,'));
    expect(numbered.json().errors).toEqual({ 'row 7': ['The lastname field is required.'] });
    const semicolons = await w.importCsv('admin', `${into}&dry_run=true`, csv('', 'firstname;lastname', 'Mia;Kid'));
    expect(semicolons.json().data).toEqual({ created: 1, updated: 0, unchanged: 0 });
  });

  it('takes any number of empty lines, and rows without data up to four times IMPORT_MAX_ROWS besides the data rows', async () => {
    // 10 MiB of line breaks alone: nothing to import, read at once.
    const breaks = await w.importCsv('admin', `${into}&dry_run=true`, Buffer.from(`firstname,lastname\r\n${'\r\n'.repeat(5 * 1024 * 1024 - 16)}Mia,Kid\r\n`));
    expect(breaks.json().data, breaks.body.slice(0, 200)).toEqual({ created: 1, updated: 0, unchanged: 0 });
    const empties = (count: number) => Array.from({ length: count }, () => ',');
    // The header, 80,000 rows of separators and two data rows: within the bound (1 + 20,000 x 5 rows).
    const within = await w.importCsv('admin', `${into}&dry_run=true`, csv('firstname,lastname', 'Mia,Kid', ...empties(80_000), 'Noah,Kid'));
    expect(within.json().data, within.body.slice(0, 200)).toEqual({ created: 2, updated: 0, unchanged: 0 });
    // One row more than the bound: refused where reading stops.
    const beyond = await w.importCsv('admin', `${into}&dry_run=true`, csv('firstname,lastname', 'Mia,Kid', ...empties(99_999), 'Noah,Kid'));
    expect(beyond.statusCode).toBe(422);
    expect(beyond.json().errors).toEqual({ file: ['The file must not have more than 20000 rows.'] });
  });

  it('names each problem of a header once, however often it repeats', async () => {
    const answer = await w.importCsv('admin', into, `firstname${',x'.repeat(100_000)}\r\nMia\r\n`);
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({ file: ['The file has an unknown column: x.', 'The column x appears more than once.'] });
  });

  it('takes text/csv only, within IMPORT_BODY_LIMIT', async () => {
    const json = await w.importCsv('admin', into, JSON.stringify({ firstname: 'Mia' }), 'application/json');
    expect(json.statusCode).toBe(415);
    expect(json.json()).toEqual({ success: false, message: 'Unsupported Media Type. Send CSV with Content-Type: text/csv.' });
    expect((await w.importCsv('admin', into, 'a', 'text/plain')).statusCode).toBe(415);
    expect((await w.importCsv('admin', into, csv('firstname,lastname', 'Mia,Kid'), 'text/csv; charset=utf-8')).statusCode).toBe(200);
    // Elsewhere CSV is no body at all.
    const elsewhere = await w.t.app.inject({
      method: 'POST', url: '/api/groups', payload: 'a,b', headers: { host: 'demo.localhost', accept: 'application/json', 'content-type': 'text/csv', authorization: `Bearer ${w.tokens.admin}` },
    });
    expect(elsewhere.statusCode).toBe(415);
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    const tooLarge = await w.importCsv('admin', into, big);
    expect(tooLarge.statusCode).toBe(413);
  });

  it('answers 403 for the whole file without write on the group or for a role above the caller', async () => {
    const body = csv('firstname,lastname', 'Mia,Kid');
    const elsewhere = await w.importCsv('leader', `group_id=${w.other}&role_type=member`, body);
    expect(elsewhere.statusCode).toBe(403);
    expect(elsewhere.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    expect((await w.importCsv('leader', `group_id=${w.troop}&role_type=admin`, body)).statusCode).toBe(403);
    expect((await w.importCsv('leader', `group_id=${w.troop}&role_type=nope`, body)).statusCode).toBe(404);
    expect((await w.importCsv('leader', `group_id=999999&role_type=member`, body)).statusCode).toBe(404);
    const query = await w.importCsv('leader', `group_id=x&role_type=member&foo=1`, body);
    expect(query.statusCode).toBe(422);
    expect(query.json().errors).toEqual({ group_id: ['The group id field must be an integer.'], foo: ['The foo field is prohibited.'] });
    const limited = (await w.call('admin', 'POST', '/tokens', { name: 'x', abilities: ['people:read'] })).json().data.plainTextToken as string;
    const ability = await w.t.app.inject({
      method: 'POST', url: `/api/people/import?${into}`, payload: body,
      headers: { host: 'demo.localhost', accept: 'application/json', 'content-type': 'text/csv', authorization: `Bearer ${limited}` },
    });
    expect(ability.json()).toEqual({ success: false, message: 'Invalid ability provided.' });
  });

  it('makes updating someone the caller may not change a row error', async () => {
    await w.importCsv('admin', `group_id=${w.other}&role_type=member`, csv('firstname,lastname,email', 'Lea,Other,lea@example.com'));
    const answer = await w.importCsv('leader', into, csv('firstname,lastname,email', 'Lea,Other,lea@example.com', 'Mia,Kid,'));
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({ 'row 2': ['You may not change the person this row matches.'] });
    expect(await w.countPeople()).toBe(3);
  });

  it('does not compare the username of someone the caller may not change: right and wrong guesses answer alike', async () => {
    // The admin (on the root) is hidden from the troop leader; the leader knows the admin's address.
    expect((await w.call('leader', 'GET', `/people/${w.ids.admin}`)).statusCode).toBe(404);
    const answers = [];
    for (const guess of ['admin', 'someone-else']) {
      const answer = await w.importCsv('leader', into, csv('username,email,firstname,lastname', `${guess},admin@example.com,,`));
      expect(answer.statusCode, guess).toBe(422);
      answers.push(answer.json());
    }
    expect(answers[0]).toEqual({ success: false, message: 'You may not change the person this row matches.', errors: { 'row 2': ['You may not change the person this row matches.'] } });
    expect(answers[1]).toEqual(answers[0]);
  });

  it('keeps the username rule: equal to the matched person is fine, anything else is a row error', async () => {
    const answer = await w.importCsv('admin', into, csv('username,email,firstname,lastname', 'leader,leader@example.com,,', 'other,admin@example.com,,'));
    expect(answer.json().errors).toEqual({ 'row 3': ['The username field cannot be set by import.'] });
    const ok = await w.importCsv('admin', into, csv('username,email,city', 'leader,LEADER@example.com,Bern'));
    expect(ok.json().data).toEqual({ created: 0, updated: 1, unchanged: 0 });
  });

  it('never answers 5xx to hostile bodies', async () => {
    const bodies = [
      randomBytes(2000),
      Buffer.from('firstname,lastname\r\n"Mia,Kid\r\n'),
      Buffer.from('firstname,lastname\r\n"Mia"x,Kid\r\n'),
      Buffer.from(`firstname,lastname\r\n${'x'.repeat(5 * 1024 * 1024)},Kid\r\n`),
      Buffer.from('firstname,lastname\r\nMia,Kid,extra,cells\r\n'),
      Buffer.from('firstname,lastname\r\n\u0000,Kid\r\n'),
      Buffer.from('"""'),
      Buffer.from('\uFEFF'),
    ];
    for (const body of bodies) {
      const answer = await w.importCsv('admin', into, body);
      expect(answer.statusCode, answer.body.slice(0, 200)).toBeLessThan(500);
      expect([200, 422]).toContain(answer.statusCode);
    }
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom('a', ',', ';', '"', '\r', '\n', "'", '=', 'firstname', 'lastname', 'email', '\u0000', 'é') }), async (text) => {
        const answer = await w.importCsv('admin', `${into}&dry_run=true`, `firstname,lastname\r\n${text}`);
        expect([200, 422]).toContain(answer.statusCode);
      }),
      { numRuns: 150 },
    );
  });
});
