import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';

interface AgendaItem {
  event: { id: number; name: string };
  family: { person_id: number; participation_id: number; state: string; waitlist_position: number | null }[];
  may_register: number[];
}
const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

/** GET /user/agenda: what is next for the caller and their wards (docs/api/events-and-registration.md). */
describe('the family agenda', () => {
  let w: World;
  let camp: { id: number };
  let troopBHike: { id: number };
  let started: { id: number };
  let later: { id: number };
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
    camp = await w.event('regionleader', { group_id: w.region, name: 'Region camp', starts_at: daysFromNow(20), ends_at: daysFromNow(22), capacity: 1 });
    troopBHike = await w.event('regionleader', { group_id: w.troopB, name: 'Troop B hike', starts_at: daysFromNow(10), ends_at: daysFromNow(10) });
    started = await w.event('regionleader', { group_id: w.region, name: 'Started weekend', starts_at: hoursFromNow(-2), ends_at: hoursFromNow(30) });
    later = await w.event('regionleader', { group_id: w.region, name: 'Next summer', starts_at: daysFromNow(200), ends_at: daysFromNow(210) });
  }, 60_000);
  afterAll(() => w?.t.close());

  const agenda = async (who: string, query = '') => {
    const answer = await w.call(who, 'GET', `/user/agenda${query}`);
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json().data as { events: AgendaItem[]; next_cursor: string | null };
  };
  const ids = (items: AgendaItem[]) => items.map((item) => item.event.id);

  it('lists the events open to a member now, with who may register, and not those of other branches, started or far ahead', async () => {
    const { events, next_cursor } = await agenda('member');
    expect(ids(events)).toEqual([camp.id]);
    expect(events[0]).toMatchObject({ event: { name: 'Region camp' }, family: [], may_register: [w.ids.member] });
    expect(Object.keys(events[0]!)).toEqual(['event', 'family', 'may_register']);
    expect(next_cursor).toBeNull();
    expect(ids((await agenda('member', `?to=${encodeURIComponent(daysFromNow(300))}`)).events)).toEqual([camp.id, later.id]);
  });

  it("lists a ward's events for the guardian: the ward may register, the guardian (a member elsewhere) may not", async () => {
    const { events } = await agenda('parent');
    expect(ids(events)).toEqual([camp.id]);
    expect(events[0]!.may_register).toEqual([w.ids.child]);
  });

  it('does not list every event to someone who only reads the groups', async () => {
    expect((await agenda('observer')).events).toEqual([]);
  });

  it('shows the family\'s registrations with their state and place, also in a started event and a full one', async () => {
    await w.register('regionleader', camp.id, { person_id: w.ids.troopleader });
    const waiting = await w.register('parent', camp.id, { person_id: w.ids.child });
    expect(waiting.state).toBe('waitlisted');
    const inStarted = await w.register('regionleader', started.id, { person_id: w.ids.child });
    const { events } = await agenda('parent');
    expect(ids(events)).toEqual([started.id, camp.id]);
    expect(events[0]).toMatchObject({ family: [{ person_id: w.ids.child, participation_id: inStarted.id, state: 'accepted', waitlist_position: null }], may_register: [] });
    expect(events[1]).toMatchObject({ family: [{ person_id: w.ids.child, participation_id: waiting.id, state: 'waitlisted', waitlist_position: 1 }], may_register: [] });
    // The camp is full: the member is still offered it (they would join the waiting list).
    expect((await agenda('member')).events.find((item) => item.event.id === camp.id)!.may_register).toEqual([w.ids.member]);
  });

  it('drops a cancelled registration, and offers the event again while it is open', async () => {
    const mine = await w.register('member', camp.id, { person_id: w.ids.member });
    expect((await w.call('member', 'PATCH', `/participations/${mine.id}`, { state: 'cancelled' })).statusCode).toBe(200);
    const item = (await agenda('member')).events.find((entry) => entry.event.id === camp.id)!;
    expect(item).toMatchObject({ family: [], may_register: [w.ids.member] });
  });

  it('pages by start, then id, with a cursor', async () => {
    const first = await agenda('parent', '?limit=1');
    expect(ids(first.events)).toEqual([started.id]);
    const second = await agenda('parent', `?limit=1&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(ids(second.events)).toEqual([camp.id]);
    expect(second.next_cursor).toBeNull();
    expect(troopBHike.id).toBeGreaterThan(0);
  });

  it('needs events:read, and refuses unknown query parameters', async () => {
    expect((await w.callWith(await w.tokenWith('member', ['user:read']), 'GET', '/user/agenda')).statusCode).toBe(403);
    expect((await w.call('member', 'GET', '/user/agenda?dryrun=1')).statusCode).toBe(422);
  });
});
