import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildImportWorld, csv, type ImportWorld } from './helpers.js';

/** CSV files as people keep them: their headers, values and dialects. */
describe('POST /people/import with files as spreadsheets write them', () => {
  let w: ImportWorld;
  let into: string;
  beforeEach(async () => {
    w = await buildImportWorld();
    into = `group_id=${w.troop}&role_type=member`;
  });
  afterEach(() => w.t.close());

  const people = () => w.call('admin', 'GET', `/people?group_id=${w.troop}&role_type=member&limit=200`).then((r) => r.json().data.people);

  it('reads a German Windows-1252 file with semicolons, German headers, dotted dates and WAHR', async () => {
    const text = csv('Vorname;Nachname;E-Mail;Geburtsdatum;Straße;PLZ;Wohnort;Vegetarier;Kann schwimmen', 'Jürg;Müller;jurg@example.com;04.03.2014;Bahnhofstrasse;3011;Bern;WAHR;falsch');
    const body = Buffer.from(text, 'latin1');
    // Not valid UTF-8: the ü and ß are single bytes.
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(body)).toThrow();
    const answer = await w.importCsv('admin', into, body);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().data).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect((await people())[0]).toMatchObject({
      firstname: 'Jürg', lastname: 'Müller', email: 'jurg@example.com', birthday: '2014-03-04', street: 'Bahnhofstrasse', zip: '3011', city: 'Bern', is_vegetarian: true, can_swimm: false,
    });
  });

  it('reads a tab-separated UTF-16 file with a byte order mark, little and big endian', async () => {
    const text = `\uFEFF${csv('First name\tLast name\tDate of birth\tCan swim\tMobile', 'Zoë\tSmith\t4.3.2014\tyes\t+41 79 123 45 67')}`;
    const little = await w.importCsv('admin', `${into}&dry_run=true`, Buffer.from(text, 'utf16le'));
    expect(little.json().data, little.body).toEqual({ created: 1, updated: 0, unchanged: 0 });
    const answer = await w.importCsv('admin', into, Buffer.from(text, 'utf16le').swap16());
    expect(answer.json().data, answer.body).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect((await people())[0]).toMatchObject({ firstname: 'Zoë', lastname: 'Smith', birthday: '2014-03-04', can_swimm: true, phonenumber_mobile: '+41 79 123 45 67' });
  });

  it('reads French headers, slash dates day first, oui/non and x, accents and spaces aside', async () => {
    const body = csv('Prénom,Nom,Courriel,Date de naissance,Téléphone,Rue,Numéro,NPA,Localité,Végétarien,Sait nager', 'Léa,Dubois,lea@example.com,04/03/2014,021 987 65 43,Rue du Lac,4,1003,Lausanne,oui,x');
    const answer = await w.importCsv('admin', into, body);
    expect(answer.json().data, answer.body).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect((await people())[0]).toMatchObject({
      firstname: 'Léa', lastname: 'Dubois', birthday: '2014-03-04', phonenumber: '021 987 65 43', street: 'Rue du Lac', housenumber: '4', zip: '1003', city: 'Lausanne', is_vegetarian: true, can_swimm: true,
    });
  });

  it('matches headers blind to case, accents, spaces, hyphens and underscores', async () => {
    const body = csv('FIRST_NAME,last-name,e mail,PHONENUMBER-MOBILE,code_postal,PRENOM_x', 'Mia,Kid,mia@example.com,079,3000,1');
    const answer = await w.importCsv('admin', into, body);
    // Everything but the last column is known.
    expect(answer.json().errors).toEqual({ file: ['The file has an unknown column: PRENOM_x.'] });
    const known = await w.importCsv('admin', into, csv('FIRST_NAME,last-name,e mail,PHONENUMBER-MOBILE,code_postal,Ville', 'Mia,Kid,mia@example.com,079,3000,Bern'));
    expect(known.json().data, known.body).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect((await people())[0]).toMatchObject({ firstname: 'Mia', email: 'mia@example.com', phonenumber_mobile: '079', zip: '3000', city: 'Bern' });
  });

  it('reads Name and Nom as the last name only beside a first-name column, and never Nr', async () => {
    const alone = await w.importCsv('admin', into, csv('Name,email', 'Mia Kid,mia@example.com'));
    expect(alone.json().errors).toEqual({ file: ['The file has an unknown column: Name.'] });
    const beside = await w.importCsv('admin', into, csv('Vorname,Name,Nr', 'Mia,Kid,4'));
    expect(beside.json().errors).toEqual({ file: ['The file has an unknown column: Nr.'] });
    const ok = await w.importCsv('admin', into, csv('Prénom;Nom', 'Mia;Kid'));
    expect(ok.json().data).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect((await people())[0]).toMatchObject({ firstname: 'Mia', lastname: 'Kid' });
  });

  it('refuses two columns that mean one field, naming both', async () => {
    const answer = await w.importCsv('admin', into, csv('Vorname,Name,Nachname', 'Mia,Kid,Kid'));
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({ file: ['The columns "Name" and "Nachname" both mean lastname.'] });
    const mail = await w.importCsv('admin', into, csv('firstname,lastname,email,Courriel', 'Mia,Kid,a@example.com,a@example.com'));
    expect(mail.json().errors).toEqual({ file: ['The columns "email" and "Courriel" both mean email.'] });
  });

  it('reads every date form, and names the accepted forms for a date that fits none', async () => {
    const body = csv('firstname,lastname,birthday', 'A,Kid,2014-03-04', 'B,Kid,04.03.2014', 'C,Kid,4.3.2014', 'D,Kid,04/03/2014', 'E,Kid,March 4 2014', 'F,Kid,31.02.2014', 'G,Kid,2014/03/04');
    const answer = await w.importCsv('admin', `${into}&dry_run=true`, body);
    const message = 'The birthday field must be a date such as 2014-03-04 or 04.03.2014.';
    expect(answer.json().errors).toEqual({ 'row 6': [message], 'row 7': [message], 'row 8': [message] });
    const fine = await w.importCsv('admin', into, csv('firstname,lastname,birthday', 'A,Kid,2014-03-04', 'B,Kid,04.03.2014', 'C,Kid,4.3.2014', 'D,Kid,04/03/2014'));
    expect(fine.json().data).toEqual({ created: 4, updated: 0, unchanged: 0 });
    expect((await people()).map((person: { birthday: string }) => person.birthday)).toEqual(['2014-03-04', '2014-03-04', '2014-03-04', '2014-03-04']);
  });

  it('refuses a file with a month-first slash date whole, on `file`', async () => {
    const answer = await w.importCsv('admin', into, csv('firstname,lastname,birthday', 'A,Kid,04/03/2014', 'B,Kid,03/24/2014'));
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({ file: ['Dates like 03/24/2014 are read day first; use 24.03.2014.'] });
    expect(await w.countPeople()).toBe(2);
  });

  it('reads every yes/no word in any case, and names them for a word that fits none', async () => {
    const yes = ['true', 'YES', 'Ja', 'oui', 'WAHR', 'vrai', '1', 'x', 'X'];
    const no = ['false', 'No', 'NEIN', 'non', 'falsch', 'Faux', '0'];
    const rows = [...yes.map((word, i) => `Y${i},Kid,${word}`), ...no.map((word, i) => `N${i},Kid,${word}`)];
    const answer = await w.importCsv('admin', into, csv('firstname,lastname,is_vegetarian', ...rows));
    expect(answer.json().data, answer.body).toEqual({ created: yes.length + no.length, updated: 0, unchanged: 0 });
    const flags = Object.fromEntries((await people()).map((person: { firstname: string; is_vegetarian: boolean }) => [person.firstname, person.is_vegetarian]));
    for (const [i] of yes.entries()) expect(flags[`Y${i}`], yes[i]).toBe(true);
    for (const [i] of no.entries()) expect(flags[`N${i}`], no[i]).toBe(false);
    const wrong = await w.importCsv('admin', into, csv('firstname,lastname,is_vegetarian', 'Mia,Kid,maybe'));
    expect(wrong.json().errors).toEqual({
      'row 2': ['The is vegetarian field must be yes or no, such as true/false, yes/no, ja/nein, oui/non, wahr/falsch, vrai/faux, 1/0 or x/empty.'],
    });
  });

  it('gives an empty yes/no cell false on a new row and leaves it unchanged on a matched one', async () => {
    await w.importCsv('admin', into, csv('firstname,lastname,email,is_vegetarian,can_swimm', 'Mia,Kid,mia@example.com,x,'));
    expect((await people())[0]).toMatchObject({ is_vegetarian: true, can_swimm: false });
    const again = await w.importCsv('admin', into, csv('email,is_vegetarian,can_swimm', 'mia@example.com,,ja'));
    expect(again.json().data).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect((await people())[0]).toMatchObject({ is_vegetarian: true, can_swimm: true });
  });

  it('honours the charset of the Content-Type, and refuses one it does not read', async () => {
    // Valid UTF-8 bytes that mean something else in Windows-1252: the declaration decides.
    const body = Buffer.from(csv('firstname,lastname', 'JÃ¼rg,Kid'), 'latin1');
    const declared = await w.importCsv('admin', into, body, 'text/csv; charset=windows-1252');
    expect(declared.json().data).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect((await people())[0].firstname).toBe('JÃ¼rg');
    const latin1 = await w.importCsv('admin', `${into}&dry_run=true`, Buffer.from(csv('firstname,lastname', 'Zoë,Kid'), 'latin1'), 'text/csv; charset=ISO-8859-1');
    expect(latin1.json().data).toEqual({ created: 1, updated: 0, unchanged: 0 });
    const notUtf8 = await w.importCsv('admin', into, Buffer.from(csv('firstname,lastname', 'Zoë,Kid'), 'latin1'), 'text/csv; charset=utf-8');
    expect(notUtf8.json().errors).toEqual({ file: ['The file must be UTF-8 text.'] });
    const other = await w.importCsv('admin', into, csv('firstname,lastname', 'Mia,Kid'), 'text/csv; charset=shift_jis');
    expect(other.json().errors).toEqual({ file: ['The charset of the file must be utf-8, windows-1252 or iso-8859-1.'] });
    expect(await w.countPeople()).toBe(3);
  });

  it('reads the whole body as UTF-8 before deciding: a bad byte at the very end makes it Windows-1252', async () => {
    const body = Buffer.concat([Buffer.from(csv('firstname,lastname,city', 'Zoë,Kid,Bern'), 'utf8'), Buffer.from(csv('Ann,Kid,Z\u00fcrich'), 'latin1')]);
    const answer = await w.importCsv('admin', into, body);
    expect(answer.json().data).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const names = (await people()).map((person: { firstname: string; city: string }) => [person.firstname, person.city]);
    expect(names).toEqual([['Ann', 'Zürich'], ['ZoÃ«', 'Bern']]);
  });

  it('ignores unknown columns with ignore_unknown=true and lists them', async () => {
    const body = csv('Vorname,Nachname,Schuhgrösse,id,Notes', 'Mia,Kid,36,7,likes knots');
    const refused = await w.importCsv('admin', `${into}&dry_run=true`, body);
    expect(refused.json().errors).toEqual({ file: ['The file has an unknown column: Schuhgrösse.', 'The file has an unknown column: Notes.'] });
    const answer = await w.importCsv('admin', `${into}&ignore_unknown=true`, body);
    expect(answer.json().data).toEqual({ created: 1, updated: 0, unchanged: 0, ignored_columns: ['Schuhgrösse', 'Notes'] });
    // A password column is refused all the same.
    const password = await w.importCsv('admin', `${into}&ignore_unknown=true`, csv('firstname,lastname,password', 'Mia,Kid,x'));
    expect(password.json().errors).toEqual({ file: ['The password column cannot be imported.'] });
  });

  it('says with details=true what each column is read as and what each row does', async () => {
    await w.importCsv('admin', into, csv('firstname,lastname,email,city,is_vegetarian', 'Mia,Kid,mia@example.com,Bern,false', 'Ann,Kid,ann@example.com,Thun,'));
    const [ann, mia] = await people();
    const body = csv('E-Mail;Vorname;Nachname;Ort;Vegetarier;Schuhgrösse', 'mia@example.com;Mia;Kid;Thun;ja;36', 'ann@example.com;Ann;Kid;Thun;;', 'noah@example.com;Noah;Kid;;x;');
    const dry = await w.importCsv('admin', `${into}&dry_run=true&details=true&ignore_unknown=true`, body);
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json().data).toEqual({
      created: 1,
      updated: 1,
      unchanged: 1,
      columns: [
        { header: 'E-Mail', field: 'email' },
        { header: 'Vorname', field: 'firstname' },
        { header: 'Nachname', field: 'lastname' },
        { header: 'Ort', field: 'city' },
        { header: 'Vegetarier', field: 'is_vegetarian' },
        { header: 'Schuhgrösse', field: null },
      ],
      rows: [
        { row: 2, action: 'updated', person_id: mia.id, changes: { city: ['Bern', 'Thun'], is_vegetarian: [false, true] } },
        { row: 3, action: 'unchanged', person_id: ann.id, changes: {} },
        { row: 4, action: 'created', person_id: null, changes: { email: [null, 'noah@example.com'], firstname: [null, 'Noah'], lastname: [null, 'Kid'], is_vegetarian: [null, true] } },
      ],
      ignored_columns: ['Schuhgrösse'],
    });
    const real = await w.importCsv('admin', `${into}&details=true&ignore_unknown=true`, body);
    const created = real.json().data.rows[2];
    expect(created).toMatchObject({ action: 'created', person_id: expect.any(Number) });
    expect((await w.call('admin', 'GET', `/people/${created.person_id}`)).json().data.person).toMatchObject({ firstname: 'Noah', is_vegetarian: true });
    // Without the flags the answer is the counts alone.
    expect((await w.importCsv('admin', `${into}&dry_run=true`, body.replace(/;Schuhgrösse|;36|;$/gm, ''))).json().data).toEqual({ created: 0, updated: 0, unchanged: 3 });
  });

  it('refuses unknown query parameters before importing anything: a typo of dry_run never writes', async () => {
    const answer = await w.importCsv('admin', `${into}&dryrun=true`, csv('firstname,lastname', 'Mia,Kid'));
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({ dryrun: ['The dryrun field is prohibited.'] });
    const flags = await w.importCsv('admin', `${into}&details=maybe`, csv('firstname,lastname', 'Mia,Kid'));
    expect(flags.statusCode).toBe(422);
    expect(await w.countPeople()).toBe(2);
  });
});
