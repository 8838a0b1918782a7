import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildImportWorld, csv, type ImportWorld } from './helpers.js';

describe('POST /people/import (data.md section 2)', () => {
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
          'The birthday field must be a valid date.',
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
      'row 3': ['The birthday field must be a valid date.', 'The email has already been taken in row 2.'],
      'row 4': ['The birthday field must be a valid date.', 'The username field cannot be set by import.', 'The firstname field is required.'],
      'row 5': ['The birthday field must be a valid date.'],
    });
  });
});
