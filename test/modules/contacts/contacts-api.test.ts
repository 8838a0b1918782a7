import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vcardUid } from '../../../src/modules/contacts/vcard.js';
import { setTenantTimezone } from '../../../src/modules/tenants/rules.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';
import { checkLines, parseCards, propertyNames, props, value, type JCard } from './parse.js';

/** A zone whose date is ahead of UTC's for most of the day: the file names must carry the tenant's. */
const ZONE = 'Pacific/Kiritimati';
const tenantDate = () => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
const VCARD = 'text/vcard; charset=utf-8';
const PERSON_NOT_FOUND = { success: false, message: 'Person not found.' };

/** People as vCards: GET /people/{id}, GET /people and GET /groups/{id}/members (docs/api/calendars-and-contacts.md). */
describe('contacts as vCards', () => {
  let t: TestApp;
  let w: World;
  const uid = (id: number) => vcardUid('demo', id);
  /** A second guardian of the child, with no membership: seen through the ward only. */
  let mother: number;
  /** A member of Troop A whose guardian is listed beside them. */
  let sibling: number;

  beforeAll(async () => {
    t = await buildTestApp();
    await setTenantTimezone(t.storage, 'demo', ZONE);
    w = await buildWorld(t);
    const child = await w.call('admin', 'PATCH', `/people/${w.ids.child}`, {
      phonenumber: '+41 44 123 45 67',
      phonenumber_mobile: '+41 79 765 43 21',
      street: 'Weg, Hinterhaus',
      housenumber: '12a',
      zip: '8001',
      city: 'Zürich',
      birthday: '2015-04-03',
    });
    expect(child.statusCode, child.body).toBe(200);
    const parent = await w.call('admin', 'PATCH', `/people/${w.ids.parent}`, { phonenumber_mobile: '079 111 22 33', street: 'Parentweg', housenumber: '1', city: 'Bern' });
    expect(parent.statusCode, parent.body).toBe(200);
    const created = await w.call('admin', 'POST', '/people', { firstname: 'Maria', lastname: 'Child', email: 'maria@example.com', guardian_of: w.ids.child });
    expect(created.statusCode, created.body).toBe(201);
    mother = created.json().data.person.id;
    sibling = await w.person(w.troopA, 'Sam', 'Child');
    // The troop leader is also a guardian: listed in Troop A, so no short card of theirs is added.
    expect((await w.call('admin', 'POST', `/people/${sibling}/guardians`, { guardian_id: w.ids.troopleader })).statusCode).toBe(201);
  }, 90_000);
  afterAll(() => t?.close());

  const asCards = (answer: LightMyRequestResponse): JCard[] => {
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['content-type']).toBe(VCARD);
    checkLines(answer.body);
    return parseCards(answer.body);
  };
  const uids = (cards: JCard[]) => cards.map((card) => value(card, 'uid'));
  const byUid = (cards: JCard[], id: number) => cards.find((card) => value(card, 'uid') === uid(id))!;
  /** Every page of a JSON list, by `limit`, joined. */
  async function everyPage(who: string, path: string, key: string): Promise<{ id: number }[]> {
    const all: { id: number }[] = [];
    let cursor: string | null = null;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const answer = await w.call(who, 'GET', `${path}${separator}limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(answer.statusCode, answer.body).toBe(200);
      const data = answer.json().data;
      all.push(...(key === 'members' ? data.members.map((member: { person: { id: number } }) => member.person) : data[key]));
      cursor = data.next_cursor;
    } while (cursor);
    return all;
  }

  it("answers a person's card with Accept: text/vcard: the fields the JSON shows, and a RELATED line per guardian", async () => {
    const answer = await w.call('troopleader', 'GET', `/people/${w.ids.child}`, undefined, { accept: 'text/vcard' });
    const [card, ...more] = asCards(answer);
    expect(more).toEqual([]);
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="person-${w.ids.child}.vcf"`);
    // The same version as the JSON's.
    expect(answer.headers.etag).toBe((await w.call('troopleader', 'GET', `/people/${w.ids.child}`)).headers.etag);
    expect(value(card!, 'version')).toBe('4.0');
    expect(value(card!, 'fn')).toBe('Charlie Child');
    expect(value(card!, 'n')).toEqual(['Child', 'Charlie', '', '', '']);
    expect(props(card!, 'tel').map((tel) => [tel.params.type, tel.values[0]])).toEqual([
      ['home', '+41 44 123 45 67'],
      ['cell', '+41 79 765 43 21'],
    ]);
    expect(value(card!, 'adr')).toEqual(['', '', 'Weg, Hinterhaus 12a', 'Zürich', '', '8001', '']);
    expect(answer.body).toContain('ADR;TYPE=home:;;Weg\\, Hinterhaus 12a;Zürich;;8001;\r\n');
    expect(value(card!, 'bday')).toBe('2015-04-03');
    expect(value(card!, 'uid')).toBe(uid(w.ids.child!));
    expect(value(card!, 'email')).toBeUndefined();
    // Both guardians, by name: Maria Child, then Parent Scout.
    expect(props(card!, 'related').map((related) => [related.params.type, related.values[0]])).toEqual([
      ['parent', uid(mother)],
      ['parent', uid(w.ids.parent!)],
    ]);
  });

  it('takes text/x-vcard and parameters too, and answers JSON to any other Accept', async () => {
    for (const accept of ['text/x-vcard', 'Text/VCard; charset=utf-8', 'text/vcard, application/json']) {
      expect(uids(asCards(await w.call('parent', 'GET', `/people/${w.ids.child}`, undefined, { accept })))).toEqual([uid(w.ids.child!)]);
    }
    const json = await w.call('parent', 'GET', `/people/${w.ids.child}`, undefined, { accept: 'application/json, text/vcard' });
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.json().data.person.id).toBe(w.ids.child);
  });

  it('answers 404 for a person the caller does not see, as the JSON does, and a guardian sees their ward', async () => {
    for (const [who, id] of [['outsider', w.ids.child], ['member', w.ids.outsider], ['troopleader', 999_999]] as const) {
      const answer = await w.call(who, 'GET', `/people/${id}`, undefined, { accept: 'text/vcard' });
      expect(answer.statusCode, `${who} ${id}`).toBe(404);
      expect(answer.json()).toEqual(PERSON_NOT_FOUND);
    }
    expect(uids(asCards(await w.call('parent', 'GET', `/people/${w.ids.child}`, undefined, { accept: 'text/vcard' })))).toEqual([uid(w.ids.child!)]);
    // Guardians are seen through their ward: the leader of the ward's troop gets the mother's card.
    const [card] = asCards(await w.call('troopleader', 'GET', `/people/${mother}`, undefined, { accept: 'text/vcard' }));
    expect(value(card!, 'email')).toBe('maria@example.com');
  });

  it('answers GET /people as every page at once, the same people as the JSON pages, then the unlisted guardians', async () => {
    for (const who of ['admin', 'troopleader', 'parent', 'member', 'outsider']) {
      const listed = (await everyPage(who, '/people', 'people')).map((person) => person.id);
      const answer = await w.call(who, 'GET', '/people', undefined, { accept: 'text/vcard' });
      const cards = asCards(answer);
      expect(answer.headers['content-disposition']).toBe(`attachment; filename="people-${tenantDate()}.vcf"`);
      const listedUids = listed.map(uid);
      expect(uids(cards).slice(0, listed.length), who).toEqual(listedUids);
      // Each card after the listed ones is a guardian's short card that a listed card names.
      const named = new Set(cards.slice(0, listed.length).flatMap((card) => props(card, 'related').map((related) => related.values[0])));
      for (const extra of cards.slice(listed.length)) {
        expect(named.has(value(extra, 'uid')), who).toBe(true);
        expect(listedUids).not.toContain(value(extra, 'uid'));
      }
      // Every RELATED line names a card of the same file.
      for (const id of named) expect(uids(cards), who).toContain(id);
    }
    // A parent gets their ward; a leader no one outside what they may see.
    expect(uids(asCards(await w.call('parent', 'GET', '/people?format=vcf')))).toContain(uid(w.ids.child!));
    expect(uids(asCards(await w.call('troopleader', 'GET', '/people?format=vcf')))).not.toContain(uid(w.ids.outsider!));
  });

  it("takes the list's filters, ignores limit and cursor, and lets format win over Accept", async () => {
    const filtered = `/people?group_id=${w.troopA}`;
    const listed = (await everyPage('admin', filtered, 'people')).map((person) => uid(person.id));
    const first = await w.call('admin', 'GET', `${filtered}&limit=1`);
    const cursor = first.json().data.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const cards = asCards(await w.call('admin', 'GET', `${filtered}&format=vcf&limit=1&cursor=${encodeURIComponent(cursor)}`));
    expect(uids(cards).slice(0, listed.length)).toEqual(listed);
    // The child's guardians who are not in Troop A follow as short cards; the troop leader is listed already.
    expect(uids(cards).slice(listed.length).sort()).toEqual([uid(mother), uid(w.ids.parent!)].sort());
    expect(uids(cards).filter((id) => id === uid(w.ids.troopleader!))).toHaveLength(1);
    const csv = await w.call('admin', 'GET', `${filtered}&format=csv`, undefined, { accept: 'text/vcard' });
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(uids(asCards(await w.call('admin', 'GET', `${filtered}&format=vcf`, undefined, { accept: 'text/csv' })))).toEqual(uids(cards));
    // Not even a cursor the service did not issue is looked at.
    expect(uids(asCards(await w.call('admin', 'GET', `${filtered}&format=vcf&cursor=not-a-cursor`)))).toEqual(uids(cards));
    const json = await w.call('admin', 'GET', `${filtered}&format=json`, undefined, { accept: 'text/vcard' });
    expect(json.json().data.people.length).toBeGreaterThan(0);
  });

  it("answers a group's members as vCards: cards, RELATED lines and a short card for each guardian who is not listed", async () => {
    const answer = await w.call('troopleader', 'GET', `/groups/${w.troopA}/members?format=vcf&limit=1`);
    const cards = asCards(answer);
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="members-${w.troopA}-${tenantDate()}.vcf"`);
    const members = (await everyPage('troopleader', `/groups/${w.troopA}/members`, 'members')).map((person) => uid(person.id));
    expect(uids(cards).slice(0, members.length)).toEqual(members);
    expect(uids(cards).slice(members.length)).toEqual([uid(mother), uid(w.ids.parent!)]);
    // The short card: FN, N, EMAIL, TEL and UID only (no address, though the parent has one).
    const parent = byUid(cards, w.ids.parent!);
    expect(propertyNames(parent)).toEqual(['version', 'fn', 'n', 'email', 'tel', 'uid']);
    expect(value(parent, 'fn')).toBe('Parent Scout');
    expect(value(parent, 'tel')).toBe('079 111 22 33');
    expect(props(byUid(cards, w.ids.child!), 'related').map((related) => related.values[0])).toEqual([uid(mother), uid(w.ids.parent!)]);
    expect(props(byUid(cards, sibling), 'related').map((related) => related.values[0])).toEqual([uid(w.ids.troopleader!)]);
    // Accept asks for the same file; the filters select as in the JSON.
    expect(uids(asCards(await w.call('troopleader', 'GET', `/groups/${w.troopA}/members`, undefined, { accept: 'text/x-vcard' })))).toEqual(uids(cards));
    const leaders = asCards(await w.call('troopleader', 'GET', `/groups/${w.troopA}/members?role_type=leader`, undefined, { accept: 'text/vcard' }));
    expect(uids(leaders)).toEqual([uid(w.ids.troopleader!)]);
    // Only with read on the group, as the JSON.
    expect((await w.call('troopleader', 'GET', `/groups/${w.other}/members?format=vcf`)).statusCode).toBe(403);
  });

  it("names only guardians the caller sees: a parent seen through a ward does not open the way to the parent's own guardians", async () => {
    const created = await w.call('admin', 'POST', '/people', { firstname: 'Greta', lastname: 'Gran', email: 'greta@example.com', phonenumber: '555 01 02', guardian_of: mother });
    expect(created.statusCode, created.body).toBe(201);
    const grandmother = created.json().data.person.id as number;
    // The leader sees the mother through the child, and not the grandmother, in JSON.
    expect((await w.call('troopleader', 'GET', `/people/${grandmother}`)).statusCode).toBe(404);
    expect((await w.call('troopleader', 'GET', `/people/${mother}?include=guardians`)).json().data.guardians).toEqual([]);
    const [card] = asCards(await w.call('troopleader', 'GET', `/people/${mother}`, undefined, { accept: 'text/vcard' }));
    expect(props(card!, 'related')).toEqual([]);
    for (const path of ['/people?format=vcf', `/people?ids=${mother}&format=vcf`, `/groups/${w.troopA}/members?format=vcf&all=true`]) {
      const answer = await w.call('troopleader', 'GET', path);
      expect(uids(asCards(answer)), path).not.toContain(uid(grandmother));
      expect(answer.body, path).not.toContain('Greta');
    }
    // Whoever sees her gets her, as before.
    const admin = asCards(await w.call('admin', 'GET', `/people?ids=${mother}&format=vcf`));
    expect(props(byUid(admin, mother), 'related').map((related) => related.values[0])).toEqual([uid(grandmother)]);
    expect(uids(admin)).toEqual([uid(mother), uid(grandmother)]);
  });

  it('refuses format=vcf where no vCard exists, and answers JSON there to Accept: text/vcard', async () => {
    const event = await w.event('regionleader', { group_id: w.region, name: 'Hike', starts_at: daysFromNow(3), ends_at: daysFromNow(3) });
    const refused = await w.call('regionleader', 'GET', `/events/${event.id}/participations?format=vcf`);
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({ success: false, message: 'The selected format is invalid.', errors: { format: ['The selected format is invalid.'] } });
    const json = await w.call('regionleader', 'GET', `/events/${event.id}/participations`, undefined, { accept: 'text/vcard' });
    expect(json.statusCode).toBe(200);
    expect(json.json().data.participations).toEqual([]);
    expect((await w.call('admin', 'GET', '/people?format=vcard')).statusCode).toBe(422);
  });
});
