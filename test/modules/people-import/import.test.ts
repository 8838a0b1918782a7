import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildImportWorld, csv, type ImportWorld } from './helpers.js';

describe('POST /people/import', () => {
  let w: ImportWorld;
  beforeEach(async () => {
    w = await buildImportWorld();
  });
  afterEach(() => w.t.close());

  const members = (group: number) => w.call('admin', 'GET', `/people?group_id=${group}&role_type=member&limit=200`).then((r) => r.json().data.people);

  it('creates people without login, each with a membership starting today, and counts them', async () => {
    const body = csv('firstname,lastname,email,birthday,is_vegetarian,phonenumber', 'Mia,Kid,mia@example.com,2015-03-04,true,', 'Noah,Kid,,2016-05-06,false,031 123 45 67');
    const answer = await w.importCsv('leader', `group_id=${w.troop}&role_type=member`, body);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toEqual({ success: true, message: 'success', data: { created: 2, updated: 0, unchanged: 0 } });
    const people = await members(w.troop);
    expect(people).toHaveLength(2);
    expect(people[0]).toMatchObject({ firstname: 'Mia', email: 'mia@example.com', birthday: '2015-03-04', is_vegetarian: true, has_login: false, username: null });
    expect(people[1]).toMatchObject({ firstname: 'Noah', email: null, phonenumber: '031 123 45 67', can_swimm: false });
    const memberships = (await w.call('admin', 'GET', `/people/${people[0].id}/memberships`)).json().data.memberships;
    expect(memberships).toEqual([expect.objectContaining({ group_id: w.troop, role_type: 'member', end_on: null })]);
  });

  it('answers a committed import of 1,000 rows as done when its statistics cannot be refreshed, and asks for them only then', async () => {
    const asked: string[][] = [];
    // The database refuses the refresh (say, the connection dropped after the commit).
    w.t.storage.refreshStatistics = async (_slug, tables) => {
      asked.push([...tables]);
      if (tables.length > 0) throw new Error('connection terminated');
    };
    const rows = Array.from({ length: 1_000 }, (_, i) => `First${i},Many,many${i}@example.com`);
    const dry = await w.importCsv('admin', `group_id=${w.other}&role_type=member&dry_run=true`, csv('firstname,lastname,email', ...rows));
    expect(dry.json().data).toEqual({ created: 1_000, updated: 0, unchanged: 0 });
    const answer = await w.importCsv('admin', `group_id=${w.other}&role_type=member`, csv('firstname,lastname,email', ...rows));
    expect(answer.statusCode, answer.body.slice(0, 300)).toBe(200);
    expect(answer.json().data).toEqual({ created: 1_000, updated: 0, unchanged: 0 });
    expect(asked).toEqual([[], ['users', 'memberships']]);
    const small = await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, csv('firstname,lastname', 'Mia,Kid'));
    expect(small.statusCode).toBe(200);
    expect(asked.at(-1)).toEqual([]);
  });

  it('matches by e-mail in any case, updates the given fields, keeps the stored case, and adds the missing membership', async () => {
    await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, csv('firstname,lastname,email,city', 'Mia,Kid,Mia@Example.com,Bern'));
    const again = await w.importCsv(
      'admin',
      `group_id=${w.other}&role_type=member`,
      csv('email,firstname,lastname,city,zip', 'MIA@example.COM,,Kid,Bern,', 'mia2@example.com,Lea,Other,,'),
    );
    expect(again.json().data).toEqual({ created: 1, updated: 0, unchanged: 1 });
    const [mia] = await members(w.other);
    expect(mia).toMatchObject({ firstname: 'Mia', email: 'Mia@Example.com', city: 'Bern', zip: null });
    const changed = await w.importCsv('admin', `group_id=${w.other}&role_type=member`, csv('email;city;zip', 'mia@example.com;Thun;3600'));
    expect(changed.json().data).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect((await members(w.other))[0]).toMatchObject({ city: 'Thun', zip: '3600', firstname: 'Mia' });
  });

  it('writes a mixed file over several statements: each row its own person and membership, records in file order', async () => {
    // Rows 0, 3, 6 ... match people already in the troop, and every other of them changes a city;
    // the rest are new. Over 500 of each kind, so both multi-row inserts span several statements.
    const ROWS = 1_650;
    const known = (i: number) => i % 3 === 0;
    const email = (i: number) => `p${i}@example.com`;
    const seed = Array.from({ length: ROWS }, (_, i) => i).filter(known).map((i) => `Old${i},Person${i},${email(i)},Bern`);
    expect((await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, csv('firstname,lastname,email,city', ...seed))).statusCode).toBe(200);
    const db = w.t.storage.tenantDb('demo');
    const lastSeq = Number((await db.selectFrom('change_records').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirstOrThrow()).seq);

    const lines = Array.from({ length: ROWS }, (_, i) => `${known(i) ? 'Old' : 'First'}${i},Person${i},${email(i)},${known(i) && i % 2 === 0 ? 'Thun' : 'Bern'}`);
    const answer = await w.importCsv('admin', `group_id=${w.other}&role_type=member`, csv('firstname,lastname,email,city', ...lines));
    expect(answer.statusCode, answer.body.slice(0, 300)).toBe(200);
    const created = ROWS - seed.length;
    const updated = Array.from({ length: ROWS }, (_, i) => i).filter((i) => known(i) && i % 2 === 0).length;
    expect(answer.json().data).toEqual({ created, updated, unchanged: seed.length - updated });

    const people = await db.selectFrom('users').select(['id', 'email', 'firstname', 'city']).where('email', 'like', 'p%@example.com').execute();
    const idOf = new Map(people.map((p) => [p.email, Number(p.id)]));
    // New people are numbered in the order of the file.
    const newIds = Array.from({ length: ROWS }, (_, i) => i).filter((i) => !known(i)).map((i) => idOf.get(email(i))!);
    expect(newIds).toEqual([...newIds].sort((a, b) => a - b));
    const rowOf = new Map(people.map((p) => [Number(p.id), p]));
    for (let i = 0; i < ROWS; i++) {
      const person = rowOf.get(idOf.get(email(i))!)!;
      expect(person.firstname).toBe(known(i) ? `Old${i}` : `First${i}`);
      expect(person.city).toBe(known(i) && i % 2 === 0 ? 'Thun' : 'Bern');
    }
    // Everyone of the file holds exactly one membership in the other troop, their own.
    const joined = await db.selectFrom('memberships').select(['id', 'person_id']).where('group_id', '=', w.other).execute();
    expect(joined.map((m) => Number(m.person_id)).sort((a, b) => a - b)).toEqual([...idOf.values()].sort((a, b) => a - b));
    const holderOf = new Map(joined.map((m) => [Number(m.id), Number(m.person_id)]));

    // The records: per row of the file, its person (created or updated, if changed), then its membership.
    const records = await db.selectFrom('change_records').select(['entity', 'entity_id', 'action', 'person_id']).where('seq', '>', lastSeq).orderBy('seq').execute();
    const expected: [string, string, number][] = [];
    for (let i = 0; i < ROWS; i++) {
      const id = idOf.get(email(i))!;
      if (!known(i)) expected.push(['person', 'created', id]);
      else if (i % 2 === 0) expected.push(['person', 'updated', id]);
      expected.push(['membership', 'created', id]);
    }
    expect(records.map((r) => [r.entity, r.action, Number(r.person_id)])).toEqual(expected);
    for (const record of records) {
      if (record.entity === 'person') expect(Number(record.entity_id)).toBe(Number(record.person_id));
      else expect(holderOf.get(Number(record.entity_id))).toBe(Number(record.person_id));
    }
  });

  it('matches a row without e-mail by name and birthday among the active members of the group, exactly one', async () => {
    await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, csv('firstname,lastname,birthday', 'Mia,Kid,2015-03-04', 'Tim,Twin,2014-01-01', 'Tim,Twin,2014-01-01'));
    const second = await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, csv('firstname,lastname,birthday,city', 'Mia,Kid,2015-03-04,Bern', 'Tim,Twin,2014-01-01,Thun', 'Mia,Kid,2015-03-05,'));
    expect(second.statusCode, second.body).toBe(200);
    // Mia matched; the two Tims are ambiguous, so a new one; another birthday is another person.
    expect(second.json().data).toEqual({ created: 2, updated: 1, unchanged: 0 });
  });

  it('leaves required fields unchanged on an empty cell and sets nullable ones to null', async () => {
    await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, csv('firstname,lastname,email,city,can_swimm', 'Mia,Kid,mia@example.com,Bern,true'));
    const answer = await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, csv('firstname,lastname,email,city,can_swimm', ',,mia@example.com,,'));
    expect(answer.json().data).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect((await members(w.troop))[0]).toMatchObject({ firstname: 'Mia', lastname: 'Kid', city: null, can_swimm: true });
  });

  it('writes nothing on a dry run, and answers what would happen', async () => {
    const before = await w.countPeople();
    const body = csv('firstname,lastname', 'Mia,Kid', 'Noah,Kid');
    const dry = await w.importCsv('admin', `group_id=${w.troop}&role_type=member&dry_run=true`, body);
    expect(dry.json()).toEqual({ success: true, message: 'success', data: { created: 2, updated: 0, unchanged: 0 } });
    expect(await w.countPeople()).toBe(before);
    const real = await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, body);
    expect(real.json().data).toEqual(dry.json().data);
    expect(await w.countPeople()).toBe(before + 2);
  });

  it('refuses every problem of every row at once, writing nothing', async () => {
    const before = await w.countPeople();
    const body = csv(
      'firstname,lastname,email,gender_id,birthday,username',
      'Mia,Kid,mia@example.com,,,',
      ',Kid,not-an-address,x,2015-02-30,',
      'Lea,Kid,MIA@example.com,,,',
      'Tom,Kid,,,,tom',
    );
    const answer = await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, body);
    expect(answer.statusCode).toBe(422);
    expect(answer.json()).toEqual({
      success: false,
      message: 'The email field must be a valid email address. (and 4 more errors)',
      errors: {
        'row 3': [
          'The email field must be a valid email address.',
          'The gender id field must be an integer.',
          'The birthday field must be a date such as 2014-03-04 or 04.03.2014.',
        ],
        'row 4': ['The email has already been taken in row 2.'],
        'row 5': ['The username field cannot be set by import.'],
      },
    });
    expect(await w.countPeople()).toBe(before);
  });

  it('checks the rest of a row whose field fails: the e-mail of an earlier row, and the username and names where the match is known', async () => {
    const body = csv(
      'firstname,lastname,email,birthday,username',
      'Ann,Kid,dup@example.com,,',
      'Ben,Kid,DUP@example.com,2020-02-30,',
      ',Kid,new@example.com,2020-02-30,someone',
      // Matched by name and birthday: whom is unknown until the birthday is a date.
      ',Kid,,2020-02-30,someone',
    );
    const answer = await w.importCsv('admin', `group_id=${w.troop}&role_type=member`, body);
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors).toEqual({
      'row 3': ['The birthday field must be a date such as 2014-03-04 or 04.03.2014.', 'The email has already been taken in row 2.'],
      'row 4': ['The birthday field must be a date such as 2014-03-04 or 04.03.2014.', 'The username field cannot be set by import.', 'The firstname field is required.'],
      'row 5': ['The birthday field must be a date such as 2014-03-04 or 04.03.2014.'],
    });
  });
});
