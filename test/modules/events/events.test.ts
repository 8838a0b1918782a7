import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, EVENT_FIELDS, type World } from '../../helpers/events.js';
import { changeEvent, removeEvent, requireVisibleEvent } from '../../../src/modules/events/rules.js';
import { changeParticipation, requireVisibleParticipation } from '../../../src/modules/participations/rules.js';
import { accessOf } from '../../../src/modules/permissions/rules.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const NOT_FOUND = { success: false, message: 'Event not found.' };
const UNAUTHORIZED = { success: false, message: 'This action is unauthorized.' };
const NO_ABILITY = { success: false, message: 'Invalid ability provided.' };

/** Events, black-box through the HTTP API. */
describe('events', () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
  }, 60_000);
  afterAll(() => w?.t.close());

  const camp = (group_id: number, fields: Record<string, unknown> = {}) => ({
    group_id, name: 'Summer camp', starts_at: daysFromNow(30), ends_at: daysFromNow(37), ...fields,
  });
  const ids = (answer: { json(): { data: { events: { id: number }[] } } }) => answer.json().data.events.map((e) => e.id);

  it('creates an event with its fields in order and the defaults, and answers it with an ETag', async () => {
    const starts_at = daysFromNow(30);
    const ends_at = daysFromNow(37);
    const created = await w.call('regionleader', 'POST', '/events', { group_id: w.region, name: 'Summer camp', starts_at, ends_at });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ success: true, message: 'success' });
    expect(created.headers.etag).toMatch(/^".+"$/);
    const event = created.json().data.event;
    expect(Object.keys(event)).toEqual(EVENT_FIELDS);
    expect(event).toMatchObject({
      group_id: w.region, name: 'Summer camp', description: null, location: null, starts_at, ends_at,
      registration_opens_at: null, registration_closes_at: null, capacity: null, waiting_list: true, requires_approval: false,
      participants_count: 0, waitlist_count: 0,
    });
    expect(event.created_at).toMatch(TIMESTAMP);
    expect(event.updated_at).toMatch(TIMESTAMP);

    const full = {
      group_id: w.region, name: 'Course', description: 'First aid', location: 'Hut', starts_at, ends_at,
      registration_opens_at: daysFromNow(-1), registration_closes_at: daysFromNow(20), capacity: 12, waiting_list: false, requires_approval: true,
    };
    const course = await w.call('regionleader', 'POST', '/events', full);
    expect(course.statusCode, course.body).toBe(201);
    expect(course.json().data.event).toMatchObject({ ...full, participants_count: 0, waitlist_count: 0 });

    const got = await w.call('member', 'GET', `/events/${event.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.headers.etag).toMatch(/^".+"$/);
    expect(Object.keys(got.json().data.event)).toEqual(EVENT_FIELDS);
    expect(got.json().data.event).toEqual(event);
  });

  it('validates an event: name required, ends_at not before starts_at, capacity at least 1', async () => {
    const noName = await w.call('regionleader', 'POST', '/events', { group_id: w.region, starts_at: daysFromNow(3), ends_at: daysFromNow(4) });
    expect(noName.statusCode).toBe(422);
    expect(noName.json().errors.name).toEqual(['The name field is required.']);
    const backwards = await w.call('regionleader', 'POST', '/events', camp(w.region, { starts_at: daysFromNow(5), ends_at: daysFromNow(4) }));
    expect(backwards.statusCode).toBe(422);
    expect(Object.keys(backwards.json().errors)).toEqual(['ends_at']);
    const zero = await w.call('regionleader', 'POST', '/events', camp(w.region, { capacity: 0 }));
    expect(zero.statusCode).toBe(422);
    expect(Object.keys(zero.json().errors)).toEqual(['capacity']);
    // ends_at equal to starts_at is allowed (ends_at >= starts_at).
    const moment = daysFromNow(6);
    expect((await w.call('regionleader', 'POST', '/events', camp(w.region, { starts_at: moment, ends_at: moment }))).statusCode).toBe(201);
    const event = await w.event('regionleader', camp(w.region));
    const patched = await w.call('regionleader', 'PATCH', `/events/${event.id}`, { ends_at: daysFromNow(1) });
    expect(patched.statusCode).toBe(422);
    expect(Object.keys(patched.json().errors)).toEqual(['ends_at']);
  });

  it('refuses moments that are no date the service can store: a leap second, a zone suffix, before the year 1 or past 9999 in UTC', async () => {
    const invalid = ['2026-12-31T23:59:60Z', '2026-06-01T10:00:00Z[Europe/Zurich]', '9999-12-31T23:59:59-23:59', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00'];
    for (const starts_at of invalid) {
      const created = await w.call('regionleader', 'POST', '/events', camp(w.region, { starts_at }));
      expect(created.statusCode, starts_at).toBe(422);
      expect(created.json().errors).toEqual({ starts_at: ['The starts at field must be a valid date.'] });
      const listed = await w.call('regionleader', 'GET', `/events?from=${encodeURIComponent(starts_at)}`);
      expect(listed.statusCode, starts_at).toBe(422);
      expect(listed.json().errors).toEqual({ from: ['The from field must be a valid date.'] });
    }
    const event = await w.event('regionleader', camp(w.region));
    const patched = await w.call('regionleader', 'PATCH', `/events/${event.id}`, { ends_at: '2026-12-31T23:59:60Z' });
    expect(patched.statusCode).toBe(422);
    expect(patched.json().errors).toEqual({ ends_at: ['The ends at field must be a valid date.'] });
    // The last moment of 9999 in UTC, and an offset that stays within it, are dates.
    const latest = await w.call('regionleader', 'POST', '/events', camp(w.region, { starts_at: '9999-12-31T22:00:00-01:00', ends_at: '9999-12-31T23:59:59Z' }));
    expect(latest.statusCode, latest.body).toBe(201);
    expect(latest.json().data.event.starts_at).toBe('9999-12-31T23:00:00.000000Z');
  });

  it('shows an event to active members of its group and below, and to readers of the group; others get 404', async () => {
    const event = await w.event('regionleader', camp(w.region));
    // regionleader: member of G; troopleader, assistant, member: members below G; parent: guardian of a
    // member below G (the child in troopA); observer: read on G through the root; admin: admin on the root.
    for (const who of ['admin', 'regionleader', 'troopleader', 'assistant', 'member', 'observer', 'parent']) {
      const got = await w.call(who, 'GET', `/events/${event.id}`);
      expect(got.statusCode, who).toBe(200);
      expect(ids(await w.call(who, 'GET', `/events?group_id=${w.region}`)), who).toContain(event.id);
    }
    const hidden = await w.call('outsider', 'GET', `/events/${event.id}`);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual(NOT_FOUND);
    expect(ids(await w.call('outsider', 'GET', '/events'))).not.toContain(event.id);
    expect((await w.call('outsider', 'GET', '/events/99999999')).json()).toEqual(NOT_FOUND);
    // Lists are never refused, even for a group the caller sees nothing of.
    expect((await w.call('outsider', 'GET', `/events?group_id=${w.region}&below=true`)).statusCode).toBe(200);
  });

  it('does not show an event through a membership that has ended', async () => {
    const former = await w.t.addUser('demo', { username: 'former', firstname: 'Former', lastname: 'Member' });
    await w.t.grant('demo', former.id, w.region, 'member', { startOn: '2020-01-01', endOn: '2020-12-31' });
    const token = await w.t.login('demo', 'former', 'correct horse battery');
    const event = await w.event('regionleader', camp(w.region));
    const answer = await w.callWith(token, 'GET', `/events/${event.id}`);
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toEqual(NOT_FOUND);
  });

  it('shows an event to anyone with a participation in it, in any state, and to their guardians', async () => {
    // troopB's event: the member and the child (troopA) are not members of troopB or below.
    const event = await w.event('admin', camp(w.troopB));
    for (const who of ['member', 'parent', 'outsider']) expect((await w.call(who, 'GET', `/events/${event.id}`)).statusCode, who).toBe(404);
    const child = await w.register('admin', event.id, { person_id: w.ids.child });
    expect((await w.call('parent', 'GET', `/events/${event.id}`)).statusCode).toBe(200);
    expect(ids(await w.call('parent', 'GET', `/events?group_id=${w.troopB}`))).toEqual([event.id]);
    const member = await w.register('admin', event.id, { person_id: w.ids.member });
    expect((await w.call('member', 'GET', `/events/${event.id}`)).statusCode).toBe(200);
    // A cancelled participation still shows the event.
    for (const participation of [child, member]) {
      expect((await w.call('admin', 'PATCH', `/participations/${participation.id}`, { state: 'cancelled' })).statusCode).toBe(200);
    }
    expect((await w.call('member', 'GET', `/events/${event.id}`)).statusCode).toBe(200);
    expect((await w.call('parent', 'GET', `/events/${event.id}`)).statusCode).toBe(200);
    expect((await w.call('outsider', 'GET', `/events/${event.id}`)).statusCode).toBe(404);
  });

  it('lets people with write on the group manage the event; others who see it get 403, others 404', async () => {
    const event = await w.event('regionleader', camp(w.region));
    for (const who of ['regionleader', 'admin']) {
      const patched = await w.call(who, 'PATCH', `/events/${event.id}`, { name: `Camp by ${who}` });
      expect(patched.statusCode, who).toBe(200);
      expect(patched.json().data.event.name).toBe(`Camp by ${who}`);
      expect(Object.keys(patched.json().data.event)).toEqual(EVENT_FIELDS);
    }
    // troopleader has write below G only; assistant, member and observer see G's event without write on G.
    for (const who of ['troopleader', 'assistant', 'member', 'observer', 'parent']) {
      const patch = await w.call(who, 'PATCH', `/events/${event.id}`, { name: 'Mine' });
      expect(patch.statusCode, who).toBe(403);
      expect(patch.json(), who).toEqual(UNAUTHORIZED);
      const remove = await w.call(who, 'DELETE', `/events/${event.id}`);
      expect(remove.statusCode, who).toBe(403);
      expect(remove.json(), who).toEqual(UNAUTHORIZED);
    }
    expect((await w.call('outsider', 'PATCH', `/events/${event.id}`, { name: 'Mine' })).json()).toEqual(NOT_FOUND);
    expect((await w.call('outsider', 'DELETE', `/events/${event.id}`)).json()).toEqual(NOT_FOUND);
    expect((await w.call('member', 'GET', `/events/${event.id}`)).json().data.event.name).toBe('Camp by admin');

    // Creating needs write on group_id: the troop leader may create in troopA, not in the region above it.
    const above = await w.call('troopleader', 'POST', '/events', camp(w.region));
    expect(above.statusCode).toBe(403);
    expect(above.json()).toEqual(UNAUTHORIZED);
    expect((await w.call('troopleader', 'POST', '/events', camp(w.troopA))).statusCode).toBe(201);
    expect((await w.call('member', 'POST', '/events', camp(w.troopA))).json()).toEqual(UNAUTHORIZED);
    expect((await w.call('outsider', 'POST', '/events', camp(w.region))).json()).toEqual(UNAUTHORIZED);
  });

  it('needs events:read to read and events:write to write', async () => {
    const event = await w.event('regionleader', camp(w.region));
    const reader = await w.tokenWith('regionleader', ['events:read']);
    expect((await w.callWith(reader, 'GET', `/events/${event.id}`)).statusCode).toBe(200);
    expect((await w.callWith(reader, 'GET', '/events')).statusCode).toBe(200);
    for (const [method, url, payload] of [
      ['POST', '/events', camp(w.region)],
      ['PATCH', `/events/${event.id}`, { name: 'x' }],
      ['DELETE', `/events/${event.id}`, undefined],
    ] as const) {
      const answer = await w.callWith(reader, method, url, payload);
      expect(answer.statusCode, `${method} ${url}`).toBe(403);
      expect(answer.json(), `${method} ${url}`).toEqual(NO_ABILITY);
    }
    const people = await w.tokenWith('regionleader', ['people:read', 'groups:read']);
    for (const url of ['/events', `/events/${event.id}`]) {
      const answer = await w.callWith(people, 'GET', url);
      expect(answer.statusCode, url).toBe(403);
      expect(answer.json(), url).toEqual(NO_ABILITY);
    }
    const writer = await w.tokenWith('regionleader', ['events:read', 'events:write']);
    expect((await w.callWith(writer, 'PATCH', `/events/${event.id}`, { name: 'Written' })).statusCode).toBe(200);
    expect((await w.callWith(writer, 'POST', '/events', camp(w.region))).statusCode).toBe(201);
    expect((await w.callWith(writer, 'DELETE', `/events/${event.id}`)).statusCode).toBe(204);
  });

  it('lists events by starts_at then id, filtered by group, subtree, overlap and text, page by page', async () => {
    const lower = (await w.call('admin', 'POST', '/groups', { parent_id: w.root, name: 'Listing' })).json().data.group.id as number;
    const upper = (await w.call('admin', 'POST', '/groups', { parent_id: lower, name: 'Listing below' })).json().data.group.id as number;
    const at = (day: number) => daysFromNow(100 + day);
    const make = async (group_id: number, name: string, from: number, to: number) =>
      (await w.event('admin', { group_id, name, starts_at: at(from), ends_at: at(to) })).id;
    const a = await make(lower, 'Alpha weekend', 10, 12);
    const b = await make(upper, 'Bravo day', 5, 6);
    const c = await make(lower, 'Charlie night', 10, 11);
    const d = await make(upper, 'Delta week', 20, 25);
    const e = await make(lower, 'Winter hike', 40, 41);

    expect(ids(await w.call('admin', 'GET', `/events?group_id=${lower}`))).toEqual([a, c, e]);
    expect(ids(await w.call('admin', 'GET', `/events?group_id=${upper}`))).toEqual([b, d]);
    const subtree = `/events?group_id=${lower}&below=true`;
    expect(ids(await w.call('admin', 'GET', subtree))).toEqual([b, a, c, d, e]);

    const paged: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await w.call('admin', 'GET', `${subtree}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.statusCode, page.body).toBe(200);
      expect(page.json().data.events.length).toBeLessThanOrEqual(2);
      paged.push(...ids(page));
      cursor = page.json().data.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(paged).toEqual([b, a, c, d, e]);
    expect(cursor).toBeNull();

    // from/to: events overlapping the span (a: 10-12 and d: 20-25 overlap 11.5-21; c: 10-11 ends before it).
    const span = (from?: string, to?: string) =>
      `${subtree}${from ? `&from=${encodeURIComponent(from)}` : ''}${to ? `&to=${encodeURIComponent(to)}` : ''}`;
    const midday = (day: number) => daysFromNow(100 + day + 0.5);
    expect(ids(await w.call('admin', 'GET', span(midday(11), midday(20))))).toEqual([a, d]);
    expect(ids(await w.call('admin', 'GET', span(midday(30))))).toEqual([e]);
    expect(ids(await w.call('admin', 'GET', span(undefined, midday(7))))).toEqual([b]);

    expect(ids(await w.call('admin', 'GET', `${subtree}&q=Winter`))).toEqual([e]);
    expect(ids(await w.call('admin', 'GET', `${subtree}&q=night`))).toEqual([c]);
    expect(ids(await w.call('admin', 'GET', `${subtree}&q=nothing-like-this`))).toEqual([]);

    const unknown = await w.call('admin', 'GET', '/events?foo=1');
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors).toEqual({ foo: ['The foo field is prohibited.'] });
  });

  it('refuses to lower the capacity below the accepted participants, counting neither helpers nor the waiting list', async () => {
    const event = await w.event('regionleader', camp(w.region, { capacity: 3 }));
    for (const name of ['Ann', 'Ben', 'Cid']) await w.register('regionleader', event.id, { person_id: await w.person(w.troopA, name) });
    await w.register('regionleader', event.id, { person_id: await w.person(w.troopA, 'Hal'), role: 'helper' });
    const waiting = await w.register('regionleader', event.id, { person_id: await w.person(w.troopA, 'Wil') });
    expect(waiting.state).toBe('waitlisted');

    const lowered = await w.call('regionleader', 'PATCH', `/events/${event.id}`, { capacity: 2 });
    expect(lowered.statusCode).toBe(422);
    expect(lowered.json()).toEqual({
      success: false,
      message: 'The capacity may not be less than the accepted participants.',
      errors: { capacity: ['The capacity may not be less than the accepted participants.'] },
    });
    const unchanged = (await w.call('regionleader', 'GET', `/events/${event.id}`)).json().data.event;
    expect(unchanged).toMatchObject({ capacity: 3, participants_count: 3, waitlist_count: 1 });
    const same = await w.call('regionleader', 'PATCH', `/events/${event.id}`, { capacity: 3, name: 'Still three' });
    expect(same.statusCode).toBe(200);
    expect(same.json().data.event).toMatchObject({ capacity: 3, name: 'Still three', participants_count: 3, waitlist_count: 1 });
  });

  it('deletes an event only while no participation is pending, accepted or waitlisted', async () => {
    const participants = 'The event has participants.';
    const event = await w.event('regionleader', camp(w.region, { capacity: 1 }));
    const first = await w.register('regionleader', event.id, { person_id: await w.person(w.troopA, 'Ann') });
    const second = await w.register('regionleader', event.id, { person_id: await w.person(w.troopA, 'Ben') });
    expect([first.state, second.state]).toEqual(['accepted', 'waitlisted']);
    const refused = await w.call('regionleader', 'DELETE', `/events/${event.id}`);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toBe(participants);
    await w.call('regionleader', 'PATCH', `/participations/${second.id}`, { state: 'cancelled' });
    expect((await w.call('regionleader', 'DELETE', `/events/${event.id}`)).json().message).toBe(participants);
    await w.call('regionleader', 'PATCH', `/participations/${first.id}`, { state: 'cancelled' });
    const deleted = await w.call('regionleader', 'DELETE', `/events/${event.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await w.call('regionleader', 'GET', `/events/${event.id}`)).json()).toEqual(NOT_FOUND);

    const approval = await w.event('regionleader', camp(w.region, { requires_approval: true }));
    const pending = await w.register('regionleader', approval.id, { person_id: await w.person(w.troopA, 'Pia') });
    expect(pending.state).toBe('pending');
    expect((await w.call('regionleader', 'DELETE', `/events/${approval.id}`)).json().message).toBe(participants);
    expect((await w.call('regionleader', 'PATCH', `/participations/${pending.id}`, { state: 'rejected' })).statusCode).toBe(200);
    expect((await w.call('regionleader', 'DELETE', `/events/${approval.id}`)).statusCode).toBe(204);
  });

  it('honours If-Match on PATCH and DELETE', async () => {
    const event = await w.event('regionleader', camp(w.region));
    const etag = (await w.call('regionleader', 'GET', `/events/${event.id}`)).headers.etag as string;
    const first = await w.call('regionleader', 'PATCH', `/events/${event.id}`, { location: 'Lake' }, { 'if-match': etag });
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).not.toBe(etag);
    const stale = await w.call('regionleader', 'PATCH', `/events/${event.id}`, { location: 'Sea' }, { 'if-match': etag });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toEqual({ success: false, message: 'The resource was changed by someone else.' });
    expect((await w.call('regionleader', 'DELETE', `/events/${event.id}`, undefined, { 'if-match': etag })).statusCode).toBe(412);
    expect((await w.call('regionleader', 'DELETE', `/events/${event.id}`, undefined, { 'if-match': first.headers.etag as string })).statusCode).toBe(204);
  });

  it('checks the manager again under the event lock: a move committed since the event was read takes it out of reach', async () => {
    const created = await w.call('troopleader', 'POST', '/events', camp(w.troopA, { name: 'Moving camp' }));
    expect(created.statusCode, created.body).toBe(201);
    const eventId = created.json().data.event.id as number;
    const registered = await w.call('admin', 'POST', `/events/${eventId}/participations`, { person_id: w.ids.member });
    expect(registered.statusCode, registered.body).toBe(201);
    const participationId = registered.json().data.participation.id as number;
    const db = w.t.storage.tenantDb('demo');
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const access = await accessOf(db, w.ids.troopleader!, tomorrow);
    // Read while the event is still in troop A, where the troop leader manages it ...
    const found = await requireVisibleEvent(db, access, eventId);
    const participation = await requireVisibleParticipation(db, access, participationId);
    expect(found.manager).toBe(true);
    // ... then moved to troop B by someone else before the change takes the lock.
    expect((await w.call('admin', 'PATCH', `/events/${eventId}`, { group_id: w.troopB })).statusCode).toBe(200);
    await expect(changeEvent(db, access, found, { name: 'Renamed' }, undefined)).rejects.toMatchObject({ statusCode: 403 });
    await expect(removeEvent(db, access, found, undefined)).rejects.toMatchObject({ statusCode: 403 });
    await expect(changeParticipation(db, access, participation, true, { attended: true }, undefined)).rejects.toMatchObject({ statusCode: 403 });
    const still = await w.call('admin', 'GET', `/events/${eventId}`);
    expect(still.json().data.event).toMatchObject({ name: 'Moving camp', group_id: w.troopB });
  });
});
