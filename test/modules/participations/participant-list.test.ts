import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';

/**
 * The participant list (docs/api/events-and-registration.md): by state, the waiting list in its
 * order, then by name; `sort=name|created`; `include=details` for managers with each person's
 * answers, birthday and guardians, and the summary on the first page; the CSV in the same order.
 */
describe("an event's participant list", () => {
  let w: World;
  let eventId: number;
  let people: Record<string, number>;
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
    people = {};
    // Names in an order that differs from the order of registration.
    for (const [first, last] of [['Zoe', 'Zeller'], ['Anna', 'Arnold'], ['Émile', 'Berg'], ['Bea', 'Berg'], ['Carl', 'Cohn']]) {
      people[first!] = await w.person(w.troopA, first!, last!, { birthday: '2015-04-03', is_vegetarian: first === 'Anna' });
    }
    await w.call('admin', 'POST', `/people/${people.Anna}/guardians`, { guardian_id: w.ids.parent });
    await w.call('admin', 'PATCH', `/people/${w.ids.parent}`, { phonenumber_mobile: '+41 79 123 45 67' });
    const event = await w.event('regionleader', { group_id: w.region, name: 'Ordered camp', starts_at: daysFromNow(10), ends_at: daysFromNow(12), capacity: 2, waiting_list: true });
    eventId = event.id;
    // Zoe and Anna take the seats; Émile then Bea wait (in that order); Carl is cancelled.
    const ids = (await w.call('regionleader', 'POST', `/events/${eventId}/participations`, { person_ids: [people.Zoe, people.Anna, people.Émile, people.Bea, people.Carl] })).json().data.participations as { id: number }[];
    await w.call('regionleader', 'PATCH', `/participations/${ids[4]!.id}`, { state: 'cancelled' });
  }, 60_000);
  afterAll(() => w?.t.close());

  const names = (answer: { json: () => { data: { participations: { person: { firstname: string } }[] } } }) => answer.json().data.participations.map((p) => p.person.firstname);
  const list = (query = '', who = 'regionleader') => w.call(who, 'GET', `/events/${eventId}/participations${query}`);

  it('orders by state, the waiting list by place, then by name', async () => {
    const answer = await list();
    expect(answer.statusCode, answer.body).toBe(200);
    // Accepted by name (Anna, Zoe), waitlisted by place (Émile 1, Bea 2), cancelled (Carl).
    expect(names(answer)).toEqual(['Anna', 'Zoe', 'Émile', 'Bea', 'Carl']);
  });

  it('orders by name with sort=name, and in the order of registration with sort=created', async () => {
    expect(names(await list('?sort=name'))).toEqual(['Anna', 'Bea', 'Émile', 'Carl', 'Zoe']);
    expect(names(await list('?sort=created'))).toEqual(['Zoe', 'Anna', 'Émile', 'Bea', 'Carl']);
    const wrong = await list('?sort=age');
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors).toEqual({ sort: ['The selected sort is invalid.'] });
  });

  it('pages in that order with a cursor that belongs to its order', async () => {
    for (const query of ['', '?sort=name', '?sort=created']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const separator = query === '' ? '?' : '&';
        const page = await list(`${query}${separator}limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(page.statusCode, page.body).toBe(200);
        seen.push(...names(page));
        cursor = page.json().data.next_cursor;
      } while (cursor);
      expect(seen).toEqual(names(await list(query)));
    }
    const first = (await list('?limit=2')).json().data.next_cursor as string;
    const elsewhere = await list(`?sort=name&limit=2&cursor=${encodeURIComponent(first)}`);
    expect(elsewhere.statusCode).toBe(422);
  });

  it('adds each person\'s details and guardians, and the summary on the first page, for managers only', async () => {
    const answer = await list('?include=details&limit=2');
    expect(answer.statusCode, answer.body).toBe(200);
    const data = answer.json().data;
    expect(Object.keys(data)).toEqual(['participations', 'next_cursor', 'summary']);
    expect(data.summary).toMatchObject({ accepted: 2, waitlisted: 2, cancelled: 1, vegetarians: 1 });
    const anna = data.participations[0];
    expect(Object.keys(anna.person)).toEqual(['id', 'firstname', 'lastname', 'is_vegetarian', 'can_swimm', 'birthday', 'guardians']);
    expect(anna.person).toMatchObject({ firstname: 'Anna', is_vegetarian: true, can_swimm: true, birthday: '2015-04-03' });
    expect(anna.person.guardians).toEqual([
      { id: w.ids.parent, firstname: 'Parent', lastname: 'Scout', phonenumber: null, phonenumber_mobile: '+41 79 123 45 67', email: 'parent@example.com' },
    ]);
    expect(data.participations[1].person.guardians).toEqual([]);
    const next = (await list(`?include=details&limit=2&cursor=${encodeURIComponent(data.next_cursor)}`)).json().data;
    expect(Object.keys(next)).toEqual(['participations', 'next_cursor']);
    // Not a manager: 403, though they see the event (their own participation aside).
    const member = await w.call('member', 'POST', `/events/${eventId}/participations`, { person_id: w.ids.member });
    expect(member.statusCode, member.body).toBe(201);
    const refused = await list('?include=details', 'member');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    expect((await list('?include=everything')).json().errors).toEqual({ include: ['The selected include is invalid.'] });
    await w.call('regionleader', 'PATCH', `/participations/${member.json().data.participation.id}`, { state: 'cancelled' });
  });

  it('writes the CSV in the same order', async () => {
    const csv = await w.call('regionleader', 'GET', `/events/${eventId}/participations`, undefined, { accept: 'text/csv' });
    expect(csv.statusCode).toBe(200);
    const firstnames = csv.body.trim().split('\r\n').slice(1).map((line) => line.split(',')[2]);
    expect(firstnames).toEqual(names(await list()));
  });
});
