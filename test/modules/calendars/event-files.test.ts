import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTenantTimezone } from '../../../src/modules/tenants/rules.js';
import { buildTestApp, hostOf, type TestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';
import { checkLines, parseCalendar } from './parse.js';

const ICS = 'text/calendar; charset=utf-8';
const EVENT_NOT_FOUND = { success: false, message: 'Event not found.' };

/** GET /events/{id} with Accept: text/calendar, SEQUENCE, and erasure ending a feed. */
describe('an event as a file, and its SEQUENCE', () => {
  let t: TestApp;
  let w: World;
  let camp: number;
  let hidden: number;

  beforeAll(async () => {
    t = await buildTestApp();
    await setTenantTimezone(t.storage, 'demo', 'Europe/Zurich');
    w = await buildWorld(t);
    camp = (await w.event('regionleader', { group_id: w.region, name: 'Camp', starts_at: daysFromNow(20), ends_at: daysFromNow(22), location: 'Hut' })).id;
    hidden = (await w.event('regionleader', { group_id: w.troopB, name: 'Troop B hike', starts_at: daysFromNow(10), ends_at: daysFromNow(10) })).id;
    await w.register('parent', camp, { person_id: w.ids.child });
  }, 90_000);
  afterAll(() => t?.close());

  const asIcs = (who: string, id: number) => w.call(who, 'GET', `/events/${id}`, undefined, { accept: 'text/calendar' });
  const sequenceOf = async (id: number) => {
    const answer = await asIcs('regionleader', id);
    expect(answer.statusCode, answer.body).toBe(200);
    const [event] = parseCalendar(answer.body).events;
    return event!.sequence;
  };
  const patch = async (body: Record<string, unknown>) => {
    const answer = await w.call('regionleader', 'PATCH', `/events/${camp}`, body);
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json().data.event as Record<string, unknown>;
  };

  it('answers GET /events/{id} with Accept: text/calendar as the .ics file, the same as GET /events/{id}.ics', async () => {
    const answer = await asIcs('parent', camp);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['content-type']).toBe(ICS);
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="event-${camp}.ics"`);
    expect(answer.headers.etag).toBe((await w.call('parent', 'GET', `/events/${camp}`)).headers.etag);
    checkLines(answer.body);
    const { calendar, events } = parseCalendar(answer.body);
    expect(events).toHaveLength(1);
    expect(events[0]!.summary).toBe('Camp');
    expect(events[0]!.location).toBe('Hut');
    expect(events[0]!.description).toBe('Charlie: accepted');
    expect(calendar.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid'))).toEqual(['Europe/Zurich']);
    const file = await w.call('parent', 'GET', `/events/${camp}.ics`);
    expect(file.body).toBe(answer.body);
    // Parameters and case do not matter; any other first type is the JSON.
    expect((await w.call('parent', 'GET', `/events/${camp}`, undefined, { accept: 'Text/Calendar; charset=utf-8' })).headers['content-type']).toBe(ICS);
    const json = await w.call('parent', 'GET', `/events/${camp}`, undefined, { accept: 'application/json, text/calendar' });
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.json().data.event.id).toBe(camp);
    // One address, one ETag, two representations: each says that Accept chose it, for caches.
    expect(answer.headers.vary).toBe('Accept');
    expect(json.headers.vary).toBe('Accept');
  });

  it('answers 404 "Event not found." to whoever does not see the event, as the JSON does', async () => {
    for (const id of [hidden, 999_999]) {
      const answer = await asIcs('outsider', id);
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toEqual(EVENT_NOT_FOUND);
    }
    // A manager sees it, and their family is not named.
    const [event] = parseCalendar((await asIcs('regionleader', hidden)).body).events;
    expect(event!.summary).toBe('Troop B hike');
    expect(event!.description).toBeNull();
    expect((await w.callWith(await w.tokenWith('parent', ['user:read']), 'GET', `/events/${camp}`, undefined, { accept: 'text/calendar' })).statusCode).toBe(403);
  });

  it('raises SEQUENCE by one when starts_at, ends_at or location changes, never for another field or the same value', async () => {
    const db = t.storage.tenantDb('demo');
    const stored = async () => Number((await db.selectFrom('events').select('sequence').where('id', '=', camp).executeTakeFirstOrThrow()).sequence);
    expect(await sequenceOf(camp)).toBe(0);
    const moved = await patch({ location: 'Lake' });
    expect(await sequenceOf(camp)).toBe(1);
    expect(Object.keys(moved)).not.toContain('sequence');
    await patch({ name: 'Summer camp', description: 'Bring a torch.', capacity: 30 });
    expect(await sequenceOf(camp)).toBe(1);
    // The same place and time again are no change.
    const current = (await w.call('regionleader', 'GET', `/events/${camp}`)).json().data.event;
    await patch({ location: 'Lake', starts_at: current.starts_at, ends_at: current.ends_at });
    expect(await stored()).toBe(1);
    await patch({ starts_at: daysFromNow(19) });
    expect(await sequenceOf(camp)).toBe(2);
    await patch({ ends_at: daysFromNow(23) });
    expect(await stored()).toBe(3);
    // Two of them in one change count once.
    await patch({ starts_at: daysFromNow(18), location: null });
    expect(await sequenceOf(camp)).toBe(4);
    const [event] = parseCalendar((await asIcs('parent', camp)).body).events;
    expect(event!.summary).toBe('Summer camp');
    expect(event!.location).toBeNull();
    expect(event!.sequence).toBe(4);
    // A refused change raises nothing.
    expect((await w.call('regionleader', 'PATCH', `/events/${camp}`, { location: 'Elsewhere', ends_at: daysFromNow(1) })).statusCode).toBe(422);
    expect(await stored()).toBe(4);
  });

  it("deletes the person's calendar feed with their erasure: the address answers 404 Calendar not found.", async () => {
    const made = await w.call('member', 'POST', '/user/calendar');
    expect(made.statusCode, made.body).toBe(201);
    const url = new URL(made.json().data.calendar.url as string);
    const fetchFeed = () => t.app.inject({ method: 'GET', url: url.pathname, headers: { host: hostOf('demo') } });
    expect((await fetchFeed()).statusCode).toBe(200);
    const db = t.storage.tenantDb('demo');
    const feeds = () => db.selectFrom('calendar_feeds').select('id').where('person_id', '=', w.ids.member!).execute();
    expect(await feeds()).toHaveLength(1);
    expect((await w.call('admin', 'DELETE', `/people/${w.ids.member}`)).statusCode).toBe(204);
    expect(await feeds()).toEqual([]);
    const gone = await fetchFeed();
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ success: false, message: 'Calendar not found.' });
  });
});
