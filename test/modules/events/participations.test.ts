import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { lockEvent } from '../../../src/modules/events/queries.js';
import { takePlaces, type Registration } from '../../../src/modules/participations/seats.js';
import { registerInTurn } from '../../../src/modules/participations/registration-turns.js';
import { buildWorld, CSV_COLUMNS, daysFromNow, PARTICIPATION_FIELDS, type Participation, type World } from '../../helpers/events.js';

const UNAUTHORIZED = { success: false, message: 'This action is unauthorized.' };
const NO_ABILITY = { success: false, message: 'Invalid ability provided.' };
const PERSON_NOT_FOUND = { success: false, message: 'Person not found.' };
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Participations (docs/rules/waiting-list.md), black-box through the HTTP API. */
describe('participations', () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
  }, 60_000);
  afterAll(() => w?.t.close());

  const camp = (fields: Record<string, unknown> = {}) =>
    w.event('regionleader', { group_id: w.region, name: 'Summer camp', starts_at: daysFromNow(30), ends_at: daysFromNow(37), ...fields });
  const post = (who: string, eventId: number, body: Record<string, unknown>) => w.call(who, 'POST', `/events/${eventId}/participations`, body);
  const patch = (who: string, id: number, body: Record<string, unknown>) => w.call(who, 'PATCH', `/participations/${id}`, body);
  const kid = (name: string, fields: Record<string, unknown> = {}) => w.person(w.troopA, name, 'Kid', fields);
  const eventOf = async (id: number) => (await w.call('regionleader', 'GET', `/events/${id}`)).json().data.event;
  /** [person_id, state, waitlist_position] of every participation, by participation id. */
  const states = async (eventId: number) => (await w.participations(eventId)).map((p) => [p.person_id, p.state, p.waitlist_position]);
  const expect422 = (answer: Awaited<ReturnType<World['call']>>, message: string) => {
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().message).toBe(message);
  };

  it('registers oneself and a ward with events:read, and any visible person as a manager', async () => {
    const event = await camp();
    const reader = await w.tokenWith('member', ['events:read']);
    const own = await w.callWith(reader, 'POST', `/events/${event.id}/participations`, { person_id: w.ids.member });
    expect(own.statusCode, own.body).toBe(201);
    expect(own.json()).toMatchObject({ success: true, message: 'success' });
    const mine = own.json().data.participation;
    expect(mine).toMatchObject({
      event_id: event.id, person_id: w.ids.member, role: 'participant', state: 'accepted', waitlist_position: null, attended: null, notes: null,
      person: { id: w.ids.member, firstname: 'Member', lastname: 'Scout' },
    });
    expect(Object.keys(mine.person)).toEqual(['id', 'firstname', 'lastname']);
    expect(mine.created_at).toMatch(TIMESTAMP);

    const parentReader = await w.tokenWith('parent', ['events:read']);
    const ward = await w.callWith(parentReader, 'POST', `/events/${event.id}/participations`, { person_id: w.ids.child, notes: 'Hay fever' });
    expect(ward.statusCode, ward.body).toBe(201);
    expect(ward.json().data.participation).toMatchObject({ person_id: w.ids.child, state: 'accepted', notes: 'Hay fever' });

    const someone = await kid('Sam');
    expect((await w.register('regionleader', event.id, { person_id: someone })).state).toBe('accepted');
    // A manager registering someone else needs events:write.
    const managerReader = await w.tokenWith('regionleader', ['events:read']);
    const narrow = await w.callWith(managerReader, 'POST', `/events/${event.id}/participations`, { person_id: await kid('Sue') });
    expect(narrow.statusCode).toBe(403);
    expect(narrow.json()).toEqual(NO_ABILITY);
    expect((await eventOf(event.id)).participants_count).toBe(3);
  });

  it('answers a participation with its fields in their order, everywhere', async () => {
    const event = await camp({ requires_approval: true });
    const created = await post('parent', event.id, { person_id: w.ids.child, notes: 'Hay fever' });
    expect(created.statusCode).toBe(201);
    expect(Object.keys(created.json().data.participation)).toEqual(PARTICIPATION_FIELDS);
    const patched = await patch('regionleader', created.json().data.participation.id, { state: 'accepted' });
    expect(Object.keys(patched.json().data.participation)).toEqual(PARTICIPATION_FIELDS);
    const listed = (await w.call('regionleader', 'GET', `/events/${event.id}/participations`)).json().data.participations;
    expect(listed.map((p: object) => Object.keys(p))).toEqual([PARTICIPATION_FIELDS]);
    const ofPerson = (await w.call('parent', 'GET', `/people/${w.ids.child}/participations`)).json().data.participations as object[];
    for (const item of ofPerson) expect(Object.keys(item)).toEqual(PARTICIPATION_FIELDS);
  });

  it('refuses a change by someone who sees the participation but is neither manager, person nor guardian: 403', async () => {
    const event = await camp();
    const ward = await w.register('parent', event.id, { person_id: w.ids.child });
    // The assistant reads troopA (the child's group) and sees the event and, through GET /people/{id}/participations,
    // this participation; they do not manage the event (no write on the region).
    const seen = (await w.call('assistant', 'GET', `/people/${w.ids.child}/participations`)).json().data.participations as Participation[];
    expect(seen.map((p) => p.id)).toContain(ward.id);
    const refused = await patch('assistant', ward.id, { state: 'cancelled' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual(UNAUTHORIZED);
  });

  it('refuses registering someone else: 403 for a non-manager who sees the person, 404 for a person the caller cannot see', async () => {
    const event = await camp();
    const child = await kid('Kim');
    // The assistant reads troopA's people but has no write on the region.
    const seen = await post('assistant', event.id, { person_id: child });
    expect(seen.statusCode).toBe(403);
    expect(seen.json()).toEqual(UNAUTHORIZED);
    // A plain member does not see the other members.
    const unseen = await post('member', event.id, { person_id: child });
    expect(unseen.statusCode).toBe(404);
    expect(unseen.json()).toEqual(PERSON_NOT_FOUND);
    // The region leader does not see a member of another branch.
    const elsewhere = await post('regionleader', event.id, { person_id: w.ids.outsider });
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toEqual(PERSON_NOT_FOUND);
    expect((await post('regionleader', event.id, { person_id: 99_999_999 })).json()).toEqual(PERSON_NOT_FOUND);
    // An event the caller cannot see: registering oneself is 404 Event not found.
    const hidden = await post('outsider', event.id, { person_id: w.ids.outsider });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual({ success: false, message: 'Event not found.' });
    expect(await w.participations(event.id)).toEqual([]);
  });

  it('closes registration outside the window for everyone but managers', async () => {
    const notYet = await camp({ registration_opens_at: daysFromNow(1) });
    const over = await camp({ registration_opens_at: daysFromNow(-10), registration_closes_at: daysFromNow(-1) });
    const open = await camp({ registration_opens_at: daysFromNow(-10), registration_closes_at: daysFromNow(10) });
    for (const event of [notYet, over]) {
      const self = await post('member', event.id, { person_id: w.ids.member });
      expect(self.statusCode).toBe(422);
      expect(self.json().message).toBe('Registration is closed.');
      expect((await post('parent', event.id, { person_id: w.ids.child })).json().message).toBe('Registration is closed.');
      expect((await w.register('regionleader', event.id, { person_id: w.ids.member })).state).toBe('accepted');
    }
    expect((await w.register('member', open.id, { person_id: w.ids.member })).state).toBe('accepted');
  });

  it('gives the helper and leader roles only through managers, and never counts them against the capacity', async () => {
    const event = await camp({ capacity: 1 });
    for (const role of ['helper', 'leader']) {
      const asked = await post('member', event.id, { person_id: w.ids.member, role });
      expect(asked.statusCode, role).toBe(403);
      expect(asked.json()).toEqual(UNAUTHORIZED);
    }
    const helper = await w.register('regionleader', event.id, { person_id: w.ids.member, role: 'helper' });
    const leader = await w.register('regionleader', event.id, { person_id: await kid('Lee'), role: 'leader' });
    const first = await w.register('regionleader', event.id, { person_id: await kid('Fay') });
    const helper2 = await w.register('regionleader', event.id, { person_id: await kid('Hugo'), role: 'helper' });
    const second = await w.register('regionleader', event.id, { person_id: await kid('Sid') });
    expect([helper, leader, first, helper2, second].map((p) => [p.role, p.state, p.waitlist_position])).toEqual([
      ['helper', 'accepted', null],
      ['leader', 'accepted', null],
      ['participant', 'accepted', null],
      ['helper', 'accepted', null],
      ['participant', 'waitlisted', 1],
    ]);
    expect(await eventOf(event.id)).toMatchObject({ capacity: 1, participants_count: 1, waitlist_count: 1 });
    // A helper leaving frees no seat.
    expect((await patch('regionleader', helper.id, { state: 'cancelled' })).statusCode).toBe(200);
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 1, waitlist_count: 1 });

    // With approval asked for, a pending helper is approved into a full event: helpers take no seat.
    const approval = await camp({ capacity: 1, requires_approval: true });
    const seat = await w.register('regionleader', approval.id, { person_id: await kid('Ola') });
    expect((await patch('regionleader', seat.id, { state: 'accepted' })).statusCode).toBe(200);
    const pendingHelper = await w.register('regionleader', approval.id, { person_id: await kid('Pim'), role: 'helper' });
    expect(pendingHelper.state).toBe('pending');
    const approved = await patch('regionleader', pendingHelper.id, { state: 'accepted' });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(await eventOf(approval.id)).toMatchObject({ participants_count: 1, waitlist_count: 0 });
  });

  it('keeps one live participation per person and event', async () => {
    const event = await camp({ capacity: 1 });
    await w.register('regionleader', event.id, { person_id: await kid('Ann') });
    const first = await w.register('member', event.id, { person_id: w.ids.member });
    expect(first.state).toBe('waitlisted');
    for (const who of ['member', 'regionleader']) {
      const again = await post(who, event.id, { person_id: w.ids.member });
      expect(again.statusCode).toBe(422);
      expect(again.json().message).toBe('The person is already registered.');
    }
    // Another role is still the same person.
    expect422(await post('regionleader', event.id, { person_id: w.ids.member, role: 'helper' }), 'The person is already registered.');
    expect((await patch('member', first.id, { state: 'cancelled' })).statusCode).toBe(200);
    const second = await w.register('member', event.id, { person_id: w.ids.member });
    expect(second.id).not.toBe(first.id);
    expect(second).toMatchObject({ state: 'waitlisted', waitlist_position: 1 });

    const approval = await camp({ requires_approval: true });
    expect((await w.register('member', approval.id, { person_id: w.ids.member })).state).toBe('pending');
    expect422(await post('member', approval.id, { person_id: w.ids.member }), 'The person is already registered.');
  });

  it('decides the resulting state: pending, accepted while there is room, then the waiting list or full', async () => {
    const approval = await camp({ requires_approval: true, capacity: 5 });
    const pending = await w.register('regionleader', approval.id, { person_id: await kid('Pia') });
    expect(pending).toMatchObject({ state: 'pending', waitlist_position: null });
    expect(await eventOf(approval.id)).toMatchObject({ participants_count: 0, waitlist_count: 0 });

    const listed = await camp({ capacity: 2 });
    const people = [await kid('A1'), await kid('A2'), await kid('A3'), await kid('A4')];
    const answers: Participation[] = [];
    for (const person_id of people) answers.push(await w.register('regionleader', listed.id, { person_id }));
    expect(answers.map((p) => [p.state, p.waitlist_position])).toEqual([['accepted', null], ['accepted', null], ['waitlisted', 1], ['waitlisted', 2]]);
    expect(await eventOf(listed.id)).toMatchObject({ participants_count: 2, waitlist_count: 2 });

    const noList = await camp({ capacity: 1, waiting_list: false });
    expect((await w.register('regionleader', noList.id, { person_id: await kid('B1') })).state).toBe('accepted');
    const full = await post('regionleader', noList.id, { person_id: await kid('B2') });
    expect(full.statusCode).toBe(422);
    expect(full.json().message).toBe('The event is full.');
    expect(await eventOf(noList.id)).toMatchObject({ participants_count: 1, waitlist_count: 0 });

    const unlimited = await camp();
    for (let i = 0; i < 3; i++) expect((await w.register('regionleader', unlimited.id, { person_id: await kid(`U${i}`) })).state).toBe('accepted');
    expect(await eventOf(unlimited.id)).toMatchObject({ capacity: null, participants_count: 3, waitlist_count: 0 });
  });

  it('lets managers make exactly the transitions of the state machine', async () => {
    const event = await camp({ requires_approval: true, capacity: 1 });
    const p = async (name: string) => w.register('regionleader', event.id, { person_id: await kid(name) });
    const [a, b, c, d, e, g] = [await p('Sa'), await p('Sb'), await p('Sc'), await p('Sd'), await p('Se'), await p('Sg')];
    const to = async (who: string, participation: Participation, state: string) => patch(who, participation.id, { state });

    // pending -> accepted with room; pending -> rejected; pending -> waitlisted at the end of the queue.
    const accepted = await to('regionleader', a, 'accepted');
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().data.participation).toMatchObject({ id: a.id, state: 'accepted', waitlist_position: null });
    expect((await to('regionleader', b, 'rejected')).json().data.participation.state).toBe('rejected');
    expect((await to('regionleader', c, 'waitlisted')).json().data.participation).toMatchObject({ state: 'waitlisted', waitlist_position: 1 });
    expect((await to('regionleader', d, 'waitlisted')).json().data.participation).toMatchObject({ state: 'waitlisted', waitlist_position: 2 });
    expect((await to('regionleader', g, 'waitlisted')).json().data.participation).toMatchObject({ state: 'waitlisted', waitlist_position: 3 });
    // Full: neither pending -> accepted nor waitlisted -> accepted.
    expect422(await to('regionleader', e, 'accepted'), 'The event is full.');
    expect422(await to('regionleader', c, 'accepted'), 'The event is full.');
    // waitlisted -> cancelled: the positions behind move up.
    expect((await to('regionleader', d, 'cancelled')).json().data.participation).toMatchObject({ state: 'cancelled', waitlist_position: null });
    expect(await states(event.id)).toEqual([
      [a.person_id, 'accepted', null], [b.person_id, 'rejected', null], [c.person_id, 'waitlisted', 1],
      [d.person_id, 'cancelled', null], [e.person_id, 'pending', null], [g.person_id, 'waitlisted', 2],
    ]);
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 1, waitlist_count: 2 });

    // attended on an accepted participation, not on others.
    const attended = await patch('regionleader', a.id, { attended: true });
    expect(attended.statusCode).toBe(200);
    expect(attended.json().data.participation.attended).toBe(true);
    expect((await patch('regionleader', a.id, { attended: false })).json().data.participation.attended).toBe(false);
    expect((await patch('regionleader', e.id, { attended: true })).statusCode).toBe(422);
    expect((await patch('regionleader', c.id, { attended: true })).statusCode).toBe(422);
    // role and notes.
    expect((await patch('regionleader', e.id, { role: 'helper', notes: 'Cook' })).json().data.participation).toMatchObject({ role: 'helper', notes: 'Cook' });
    expect((await patch('regionleader', e.id, { role: 'participant' })).json().data.participation.role).toBe('participant');

    // Refused transitions, with both state names.
    const refusals: [Participation, string, string][] = [
      [a, 'pending', 'The state cannot change from accepted to pending.'],
      [a, 'waitlisted', 'The state cannot change from accepted to waitlisted.'],
      [a, 'rejected', 'The state cannot change from accepted to rejected.'],
      [b, 'accepted', 'The state cannot change from rejected to accepted.'],
      [b, 'cancelled', 'The state cannot change from rejected to cancelled.'],
      [c, 'pending', 'The state cannot change from waitlisted to pending.'],
      [c, 'rejected', 'The state cannot change from waitlisted to rejected.'],
      [d, 'accepted', 'The state cannot change from cancelled to accepted.'],
      [d, 'pending', 'The state cannot change from cancelled to pending.'],
    ];
    for (const [participation, state, message] of refusals) expect422(await to('regionleader', participation, state), message);

    // pending -> cancelled; waitlisted -> cancelled; accepted -> cancelled accepts the first waitlisted.
    expect((await to('regionleader', e, 'cancelled')).json().data.participation.state).toBe('cancelled');
    expect((await to('regionleader', c, 'cancelled')).json().data.participation.state).toBe('cancelled');
    expect((await states(event.id)).at(-1)).toEqual([g.person_id, 'waitlisted', 1]);
    expect((await to('regionleader', a, 'cancelled')).json().data.participation.state).toBe('cancelled');
    expect((await states(event.id)).at(-1)).toEqual([g.person_id, 'accepted', null]);
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 1, waitlist_count: 0 });

    // Without a waiting list, pending -> waitlisted is refused.
    const noList = await camp({ requires_approval: true, waiting_list: false });
    const f = await w.register('regionleader', noList.id, { person_id: await kid('Sf') });
    expect422(await to('regionleader', f, 'waitlisted'), 'The event has no waiting list.');
    // Unknown participation.
    const unknown = await patch('regionleader', 99_999_999, { state: 'cancelled' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ success: false, message: 'Participation not found.' });
  });

  it('puts a pending person at the end of the queue on pending -> waitlisted even with seats free; waitlisted -> accepted moves the rest up', async () => {
    // pending -> waitlisted goes to the end of the queue; waitlisted -> accepted only with room.
    const event = await camp({ requires_approval: true, capacity: 5 });
    const p = async (name: string) => w.register('regionleader', event.id, { person_id: await kid(name) });
    const [a, b, c] = [await p('Ta'), await p('Tb'), await p('Tc')];
    for (const [participation, position] of [[a, 1], [b, 2], [c, 3]] as const) {
      const answer = await patch('regionleader', participation.id, { state: 'waitlisted' });
      expect(answer.json().data.participation).toMatchObject({ state: 'waitlisted', waitlist_position: position });
    }
    expect((await patch('regionleader', b.id, { state: 'accepted' })).json().data.participation).toMatchObject({ state: 'accepted', waitlist_position: null });
    expect(await states(event.id)).toEqual([[a.person_id, 'waitlisted', 1], [b.person_id, 'accepted', null], [c.person_id, 'waitlisted', 2]]);
  });

  it('lets the person and their guardians cancel and write notes only', async () => {
    const event = await camp({ requires_approval: true });
    const own = await w.register('member', event.id, { person_id: w.ids.member });
    const ward = await w.register('parent', event.id, { person_id: w.ids.child, notes: 'Asthma' });
    const reader = await w.tokenWith('member', ['events:read']);
    for (const [body, who] of [
      [{ state: 'accepted' }, 'member'], [{ state: 'rejected' }, 'member'], [{ state: 'waitlisted' }, 'member'],
      [{ role: 'helper' }, 'member'], [{ attended: true }, 'member'], [{ state: 'accepted' }, 'parent'],
    ] as const) {
      const participation = who === 'member' ? own : ward;
      const answer = await patch(who, participation.id, body);
      expect(answer.statusCode, JSON.stringify(body)).toBe(403);
      expect(answer.json()).toEqual(UNAUTHORIZED);
    }
    const notes = await patch('parent', ward.id, { notes: 'Asthma, inhaler in the bag' });
    expect(notes.statusCode).toBe(200);
    expect(notes.json().data.participation.notes).toBe('Asthma, inhaler in the bag');
    const cancelled = await w.callWith(reader, 'PATCH', `/participations/${own.id}`, { state: 'cancelled' });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json().data.participation.state).toBe('cancelled');
    expect((await patch('parent', ward.id, { state: 'cancelled' })).json().data.participation.state).toBe('cancelled');
    // Managers need events:write for their changes.
    const other = await w.register('regionleader', event.id, { person_id: await kid('Mo') });
    const managerReader = await w.tokenWith('regionleader', ['events:read']);
    const narrow = await w.callWith(managerReader, 'PATCH', `/participations/${other.id}`, { state: 'accepted' });
    expect(narrow.statusCode).toBe(403);
    expect(narrow.json()).toEqual(NO_ABILITY);
  });

  it('accepts the first waitlisted when a seat frees up or the capacity grows, and moves the queue up without gaps', async () => {
    const event = await camp({ capacity: 2 });
    const people: number[] = [];
    for (const name of ['Qa', 'Qb', 'Qc', 'Qd', 'Qe']) people.push(await kid(name));
    const registered: Participation[] = [];
    for (const person_id of people) registered.push(await w.register('regionleader', event.id, { person_id }));
    const [a, b, c, d, e] = registered;
    expect([c!.waitlist_position, d!.waitlist_position, e!.waitlist_position]).toEqual([1, 2, 3]);

    await patch('regionleader', d!.id, { state: 'cancelled' });
    expect(await states(event.id)).toEqual([
      [a!.person_id, 'accepted', null], [b!.person_id, 'accepted', null], [c!.person_id, 'waitlisted', 1],
      [d!.person_id, 'cancelled', null], [e!.person_id, 'waitlisted', 2],
    ]);
    // An accepted participant leaves: the first waitlisted is accepted, the rest move up.
    await patch('regionleader', a!.id, { state: 'cancelled' });
    expect(await states(event.id)).toEqual([
      [a!.person_id, 'cancelled', null], [b!.person_id, 'accepted', null], [c!.person_id, 'accepted', null],
      [d!.person_id, 'cancelled', null], [e!.person_id, 'waitlisted', 1],
    ]);
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 2, waitlist_count: 1 });

    const f = await w.register('regionleader', event.id, { person_id: await kid('Qf') });
    const g = await w.register('regionleader', event.id, { person_id: await kid('Qg') });
    expect([f.waitlist_position, g.waitlist_position]).toEqual([2, 3]);
    // Raising the capacity by two accepts the first two.
    expect((await w.call('regionleader', 'PATCH', `/events/${event.id}`, { capacity: 4 })).json().data.event).toMatchObject({
      capacity: 4, participants_count: 4, waitlist_count: 1,
    });
    expect((await states(event.id)).slice(4)).toEqual([[e!.person_id, 'accepted', null], [f.person_id, 'accepted', null], [g.person_id, 'waitlisted', 1]]);
    // No limit at all: everyone waiting is accepted.
    expect((await w.call('regionleader', 'PATCH', `/events/${event.id}`, { capacity: null })).json().data.event).toMatchObject({
      capacity: null, participants_count: 5, waitlist_count: 0,
    });
    expect((await states(event.id)).at(-1)).toEqual([g.person_id, 'accepted', null]);
  });

  it('counts only participants when the queue moves: a helper or leader in the queue is accepted on the way, taking no seat', async () => {
    const event = await camp({ capacity: 1 });
    const [a, b, c, d] = [await kid('Ha'), await kid('Hb'), await kid('Hc'), await kid('Hd')];
    const first = await w.register('regionleader', event.id, { person_id: a });
    const second = await w.register('regionleader', event.id, { person_id: b });
    const third = await w.register('regionleader', event.id, { person_id: c });
    expect([first.state, second.waitlist_position, third.waitlist_position]).toEqual(['accepted', 1, 2]);
    // The first of the queue becomes a helper while waiting.
    expect((await patch('regionleader', second.id, { role: 'helper' })).json().data.participation).toMatchObject({ role: 'helper', state: 'waitlisted', waitlist_position: 1 });
    // The one seat frees up: the helper (no seat needed) and the next participant are accepted.
    await patch('regionleader', first.id, { state: 'cancelled' });
    expect(await states(event.id)).toEqual([[a, 'cancelled', null], [b, 'accepted', null], [c, 'accepted', null]]);
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 1, waitlist_count: 0 });
    const summary = (await w.call('regionleader', 'GET', `/events/${event.id}/summary`)).json().data.summary;
    expect(summary).toMatchObject({ accepted: 1, helpers: 1 });
    // The count is right, so the event is full for the next participant and has room after a cancellation.
    expect((await w.register('regionleader', event.id, { person_id: d })).state).toBe('waitlisted');
    const fourth = (await w.participations(event.id)).find((p) => p.person_id === d)!;
    await patch('regionleader', third.id, { state: 'cancelled' });
    expect((await states(event.id)).at(-1)).toEqual([d, 'accepted', null]);
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 1, waitlist_count: 0 });
    // A helper behind the participant who takes the last seat keeps waiting, first in the queue.
    const e = await w.register('regionleader', event.id, { person_id: await kid('He') });
    const f = await w.register('regionleader', event.id, { person_id: await kid('Hf') });
    await patch('regionleader', f.id, { role: 'helper' });
    await patch('regionleader', fourth.id, { state: 'cancelled' });
    expect((await states(event.id)).slice(-2)).toEqual([[e.person_id, 'accepted', null], [f.person_id, 'waitlisted', 1]]);
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 1, waitlist_count: 1 });
  });

  it('moves the queue only when the capacity grows, not when it is lowered or sent unchanged', async () => {
    const event = await camp({ capacity: 5, requires_approval: true });
    const pending = await w.register('regionleader', event.id, { person_id: await kid('La') });
    expect(pending.state).toBe('pending');
    // The manager puts the person on the waiting list although seats are free.
    expect((await patch('regionleader', pending.id, { state: 'waitlisted' })).json().data.participation).toMatchObject({ state: 'waitlisted', waitlist_position: 1 });
    for (const capacity of [5, 4]) {
      const changed = await w.call('regionleader', 'PATCH', `/events/${event.id}`, { capacity });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().data.event).toMatchObject({ capacity, participants_count: 0, waitlist_count: 1 });
    }
    expect(await states(event.id)).toEqual([[pending.person_id, 'waitlisted', 1]]);
    // Raised: the first of the queue is accepted.
    expect((await w.call('regionleader', 'PATCH', `/events/${event.id}`, { capacity: 6 })).json().data.event).toMatchObject({ participants_count: 1, waitlist_count: 0 });
    expect(await states(event.id)).toEqual([[pending.person_id, 'accepted', null]]);
  });

  it('gives only the seats that were given up: one for a cancellation, as many as a raise adds, while others wait by a manager\'s choice', async () => {
    // When an accepted participant leaves, the first waitlisted person is accepted.
    const event = await camp({ capacity: 5, requires_approval: true });
    const p = async (name: string) => w.register('regionleader', event.id, { person_id: await kid(name) });
    const [a, b, c, d, e] = [await p('Sa'), await p('Sb'), await p('Sc'), await p('Sd'), await p('Se')];
    expect((await patch('regionleader', a.id, { state: 'accepted' })).statusCode).toBe(200);
    // Four seats are free, and the manager keeps four people waiting.
    for (const participation of [b, c, d, e]) expect((await patch('regionleader', participation.id, { state: 'waitlisted' })).statusCode).toBe(200);
    await patch('regionleader', a.id, { state: 'cancelled' });
    expect(await states(event.id)).toEqual([
      [a.person_id, 'cancelled', null], [b.person_id, 'accepted', null], [c.person_id, 'waitlisted', 1],
      [d.person_id, 'waitlisted', 2], [e.person_id, 'waitlisted', 3],
    ]);
    // One seat more: one more accepted, though four are free.
    const raised = await w.call('regionleader', 'PATCH', `/events/${event.id}`, { capacity: 6 });
    expect(raised.json().data.event).toMatchObject({ capacity: 6, participants_count: 2, waitlist_count: 2 });
    expect((await states(event.id)).slice(2)).toEqual([[c.person_id, 'accepted', null], [d.person_id, 'waitlisted', 1], [e.person_id, 'waitlisted', 2]]);
  });

  describe('turns of registrations (registration-turns.ts)', () => {
    const db = () => w.t.storage.tenantDb('demo');
    const registration = (personId: number, actorId: number): Registration => ({ personId, role: 'participant', notes: null, at: '2026-11-20 10:00:00.000000', actorId });
    /** Registers all in one go (one event-loop turn), as requests that arrive together do: the outcome of each. */
    const together = (eventId: number, people: readonly number[], actorOf: (i: number) => number = () => w.ids.regionleader!) =>
      Promise.all(
        people.map((personId, i) =>
          registerInTurn(db(), eventId, registration(personId, actorOf(i))).then(
            (row) => ({ row, error: null }),
            (error: { statusCode: number; details: { fieldErrors?: unknown } }) => ({ row: null, error: { status: error.statusCode, errors: error.details.fieldErrors } }),
          ),
        ),
      );

    it('places the registrations that arrive while a turn runs in one transaction, in the order they came, each with its actor', async () => {
      const event = await camp({ capacity: 3, waiting_list: true });
      const kids: number[] = [];
      for (let i = 0; i < 12; i++) kids.push(await kid(`Together ${String(i).padStart(2, '0')}`));
      const writesBefore = w.t.storage.invalidations.writes('demo');
      const actorOf = (i: number) => (i % 2 === 0 ? w.ids.regionleader! : w.ids.admin!);
      const outcomes = await together(event.id, kids, actorOf);
      // The first went alone; the eleven that came while it ran went together.
      expect(w.t.storage.invalidations.writes('demo') - writesBefore).toBe(2);
      const placed = outcomes.map((o) => o.row!);
      expect(placed.map((p) => [Number(p.person_id), p.state, p.waitlist_position === null ? null : Number(p.waitlist_position)])).toEqual(
        kids.map((id, i) => [id, i < 3 ? 'accepted' : 'waitlisted', i < 3 ? null : i - 2]),
      );
      expect(placed.map((p) => p.p_firstname)).toEqual(kids.map((_, i) => `Together ${String(i).padStart(2, '0')}`));
      expect(await eventOf(event.id)).toMatchObject({ participants_count: 3, waitlist_count: 9 });
      // Each change record names who registered, though one transaction wrote eleven of them.
      const records = await db().selectFrom('change_records').select(['entity_id', 'actor_id']).where('entity', '=', 'participation').where('action', '=', 'created').execute();
      const actors = new Map(records.map((r) => [Number(r.entity_id), Number(r.actor_id)]));
      expect(placed.map((p) => actors.get(Number(p.id)))).toEqual(kids.map((_, i) => actorOf(i)));
    });

    it('answers each registration of a turn that fails as a whole as if it were alone: one person twice, and the event full', async () => {
      const event = await camp({ capacity: 2, waiting_list: false });
      const [a, b, c, d] = [await kid('Twice'), await kid('Second'), await kid('Third'), await kid('Late')];
      const writesBefore = w.t.storage.invalidations.writes('demo');
      // `a` goes alone; the turn of the other four fails on the second `a`, registered by then, and
      // is taken again once as a whole, those registered read first (not one by one).
      const outcomes = await together(event.id, [a!, a!, b!, c!, d!]);
      const already = { status: 422, errors: { person_id: ['The person is already registered.'] } };
      const full = { status: 422, errors: { event: ['The event is full.'] } };
      expect(outcomes.map((o) => o.error ?? o.row!.state)).toEqual(['accepted', already, 'accepted', full, full]);
      expect(w.t.storage.invalidations.writes('demo') - writesBefore).toBe(2);
      // With seats for all, a retry of the whole turn writes once for the four (one by one, three times).
      const roomy = await camp({ capacity: 10 });
      const [e, f, g] = [await kid('Clicks twice'), await kid('Fourth'), await kid('Fifth')];
      const roomyBefore = w.t.storage.invalidations.writes('demo');
      const roomyOutcomes = await together(roomy.id, [e!, e!, f!, e!, g!]);
      expect(roomyOutcomes.map((o) => o.error ?? o.row!.state)).toEqual(['accepted', already, 'accepted', already, 'accepted']);
      expect(w.t.storage.invalidations.writes('demo') - roomyBefore).toBe(2);
      expect(await eventOf(roomy.id)).toMatchObject({ participants_count: 3, waitlist_count: 0 });
      expect(await states(event.id)).toEqual([[a, 'accepted', null], [b, 'accepted', null]]);
      expect(await eventOf(event.id)).toMatchObject({ participants_count: 2, waitlist_count: 0 });
      // Full, in a turn that succeeds (after `c` alone): "already registered" for one who is, "full" for one who is not.
      expect((await together(event.id, [c!, b!, d!])).map((o) => o.error)).toEqual([full, already, full]);
    });

    it('decides each registration of a turn as the ones before it left the event: roles, approval, the last seat taken twice', async () => {
      const leader = (personId: number) => ({ ...registration(personId, w.ids.regionleader!), role: 'leader' as const });
      const event = await camp({ capacity: 2, waiting_list: false });
      const [first, x, y, z] = [await kid('First'), await kid('Double'), await kid('Leading'), await kid('After')];
      const in1 = (reg: Registration) =>
        registerInTurn(db(), event.id, reg).then((row) => row.state, (error: { details: { fieldErrors?: unknown } }) => error.details.fieldErrors);
      // `first` goes alone; then one turn: `x` takes the last seat, `x` again is registered, a leader
      // needs no seat, and `y` as a participant finds the event full, though `y` leads the camp.
      const outcomes = await Promise.all([in1(registration(first!, 1)), in1(registration(x!, 1)), in1(registration(x!, 1)), in1(leader(y!)), in1(registration(y!, 1))]);
      expect(outcomes).toEqual(['accepted', 'accepted', { person_id: ['The person is already registered.'] }, 'accepted', { person_id: ['The person is already registered.'] }]);
      // Full first, placed after: as one after the other, the first hears "full", not "registered".
      const late = await Promise.all([in1(registration(first!, 1)), in1(registration(z!, 1)), in1(leader(z!))]);
      expect(late).toEqual([{ person_id: ['The person is already registered.'] }, { event: ['The event is full.'] }, 'accepted']);
      expect(await eventOf(event.id)).toMatchObject({ participants_count: 2, waitlist_count: 0 });

      const approval = await camp({ capacity: 1, requires_approval: true });
      const kids = [await kid('Ask 1'), await kid('Ask 2'), await kid('Ask 3')];
      expect((await Promise.all(kids.map((id) => registerInTurn(db(), approval.id, registration(id, 1))))).map((p) => p.state)).toEqual(['pending', 'pending', 'pending']);
      expect(await eventOf(approval.id)).toMatchObject({ participants_count: 0, waitlist_count: 0 });
    });

    it('takes each registration of a turn alone when one person of it is gone, and answers all of a deleted event with 404', async () => {
      const event = await camp({ capacity: 5 });
      const [a, b, c] = [await kid('Stays 1'), await kid('Stays 2'), await kid('Stays 3')];
      const outcomes = await together(event.id, [a!, b!, 987_654_321, c!]);
      expect(outcomes.map((o) => o.error ?? o.row!.state)).toEqual(['accepted', 'accepted', { status: 404, errors: undefined }, 'accepted']);
      expect(await eventOf(event.id)).toMatchObject({ participants_count: 3 });

      const gone = await camp({ capacity: 5 });
      expect((await w.call('regionleader', 'DELETE', `/events/${gone.id}`)).statusCode).toBe(204);
      const refused = await Promise.all(
        [a!, b!, c!].map((id) => registerInTurn(db(), gone.id, registration(id, 1)).then(() => null, (error: { statusCode: number; message: string }) => [error.statusCode, error.message])),
      );
      expect(refused).toEqual(Array(3).fill([404, 'Event not found.']));
    });
  });

  it('answers a registration of a person erased since the request read them with 404, not a failed foreign key', async () => {
    const event = await camp();
    const db = w.t.storage.tenantDb('demo');
    const locked = await db.transaction().execute(async (trx) => {
      const row = (await lockEvent(trx, event.id))!;
      return takePlaces(trx, row, [{ personId: 987_654_321, role: 'participant', notes: null, at: '2026-01-01 00:00:00.000000', actorId: null }]).then(
        () => null,
        (error: { statusCode?: number; message?: string }) => error,
      );
    });
    expect(locked).toMatchObject({ statusCode: 404, message: 'Person not found.' });
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 0, waitlist_count: 0 });
  });

  it('frees the seat of an erased accepted participant as a cancellation does', async () => {
    const event = await camp({ capacity: 1 });
    const erased = await kid('Gone');
    await w.register('regionleader', event.id, { person_id: erased });
    const waiting = await w.register('regionleader', event.id, { person_id: await kid('Next') });
    const behind = await w.register('regionleader', event.id, { person_id: await kid('Behind') });
    expect((await w.call('admin', 'DELETE', `/people/${erased}`)).statusCode).toBe(204);
    expect(await states(event.id)).toEqual([[waiting.person_id, 'accepted', null], [behind.person_id, 'waitlisted', 1]]);
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 1, waitlist_count: 1 });
  });

  it('moves the queue up but accepts no one when an erased person held no seat', async () => {
    const event = await camp({ capacity: 5, requires_approval: true });
    const erased = await kid('Queued');
    const first = await w.register('regionleader', event.id, { person_id: erased });
    const second = await w.register('regionleader', event.id, { person_id: await kid('Kept') });
    for (const p of [first, second]) expect((await patch('regionleader', p.id, { state: 'waitlisted' })).statusCode).toBe(200);
    expect((await w.call('admin', 'DELETE', `/people/${erased}`)).statusCode).toBe(204);
    // Seats are free, but the manager keeps the second waiting: only the position moves.
    expect(await states(event.id)).toEqual([[second.person_id, 'waitlisted', 1]]);
    expect(await eventOf(event.id)).toMatchObject({ participants_count: 0, waitlist_count: 1 });
  });

  it('shows notes only to managers, the person and their guardians', async () => {
    const event = await camp();
    const ward = await w.register('parent', event.id, { person_id: w.ids.child, notes: 'Peanut allergy' });
    const own = await w.register('member', event.id, { person_id: w.ids.member, notes: 'Vegan' });
    const listOf = async (who: string, query = '') => (await w.call(who, 'GET', `/events/${event.id}/participations${query}`)).json().data.participations as Participation[];

    const managed = await listOf('regionleader');
    expect(managed.map((p) => p.notes).sort()).toEqual(['Peanut allergy', 'Vegan']);
    // Others see only their own and their wards' participations, notes included.
    expect((await listOf('parent')).map((p) => [p.id, p.notes])).toEqual([[ward.id, 'Peanut allergy']]);
    expect((await listOf('member')).map((p) => [p.id, p.notes])).toEqual([[own.id, 'Vegan']]);
    expect(await listOf('assistant')).toEqual([]);
    // The assistant sees the child (read on troopA) and the event, but not the notes.
    const seen = await w.call('assistant', 'GET', `/people/${w.ids.child}/participations`);
    expect(seen.statusCode).toBe(200);
    const item = (seen.json().data.participations as Participation[]).find((p) => p.id === ward.id)!;
    expect(Object.keys(item)).toEqual(PARTICIPATION_FIELDS.filter((field) => field !== 'notes'));
    expect(item).toMatchObject({ state: 'accepted', person: { id: w.ids.child } });
    const byParent = (await w.call('parent', 'GET', `/people/${w.ids.child}/participations`)).json().data.participations as Participation[];
    expect(byParent.find((p) => p.id === ward.id)!.notes).toBe('Peanut allergy');

    // notes: 0-2,000 characters.
    expect((await patch('parent', ward.id, { notes: 'x'.repeat(2000) })).statusCode).toBe(200);
    const long = await patch('parent', ward.id, { notes: 'x'.repeat(2001) });
    expect(long.statusCode).toBe(422);
    expect(Object.keys(long.json().errors)).toEqual(['notes']);
    expect((await post('regionleader', event.id, { person_id: await kid('Nia'), notes: 'y'.repeat(2001) })).statusCode).toBe(422);
  });

  it('filters the participants by state and role', async () => {
    const event = await camp({ capacity: 1 });
    const accepted = await w.register('regionleader', event.id, { person_id: await kid('Ra') });
    const waiting = await w.register('regionleader', event.id, { person_id: await kid('Rb') });
    const helper = await w.register('regionleader', event.id, { person_id: await kid('Rc'), role: 'helper' });
    const ids = async (query: string) =>
      ((await w.call('regionleader', 'GET', `/events/${event.id}/participations?${query}`)).json().data.participations as Participation[]).map((p) => p.id).sort((x, y) => x - y);
    expect(await ids('state=accepted')).toEqual([accepted.id, helper.id]);
    expect(await ids('state=waitlisted')).toEqual([waiting.id]);
    expect(await ids('role=helper')).toEqual([helper.id]);
    expect(await ids('state=accepted&role=participant')).toEqual([accepted.id]);
    const unknown = await w.call('regionleader', 'GET', `/events/${event.id}/participations?foo=1`);
    expect(unknown.json().errors).toEqual({ foo: ['The foo field is prohibited.'] });
  });

  it('lists a person\'s participations in the events the caller can see', async () => {
    const inRegion = await camp();
    const elsewhere = await w.event('admin', { group_id: w.other, name: 'Other camp', starts_at: daysFromNow(40), ends_at: daysFromNow(41) });
    const here = await w.register('parent', inRegion.id, { person_id: w.ids.child });
    const there = await w.register('admin', elsewhere.id, { person_id: w.ids.child });
    const of = async (who: string) => {
      const answer = await w.call(who, 'GET', `/people/${w.ids.child}/participations`);
      expect(answer.statusCode, who).toBe(200);
      expect(answer.json().data).toHaveProperty('next_cursor');
      return (answer.json().data.participations as Participation[]).map((p) => p.id);
    };
    // The troop leader sees the child and the region's event, not the other branch's.
    expect(await of('troopleader')).toContain(here.id);
    expect(await of('troopleader')).not.toContain(there.id);
    expect(await of('parent')).toEqual(expect.arrayContaining([here.id, there.id]));
    expect(await of('admin')).toEqual(expect.arrayContaining([here.id, there.id]));
    const hidden = await w.call('outsider', 'GET', `/people/${w.ids.child}/participations`);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual(PERSON_NOT_FOUND);
  });

  it("answers a person's participations 404 for someone who does not exist or was erased, also to an admin on the root", async () => {
    const erased = await kid('Gone');
    expect((await w.call('admin', 'DELETE', `/people/${erased}`)).statusCode).toBe(204);
    for (const id of [erased, 99_999_999]) {
      const answer = await w.call('admin', 'GET', `/people/${id}/participations`);
      expect(answer.statusCode, answer.body).toBe(404);
      expect(answer.json()).toEqual(PERSON_NOT_FOUND);
    }
  });

  it('sums up an event for the kitchen and the lifeguard, for managers only', async () => {
    const event = await camp({ capacity: 3 });
    const person = (name: string, is_vegetarian: boolean, can_swimm: boolean) => kid(name, { is_vegetarian, can_swimm });
    const reg = async (person_id: number, role = 'participant') => w.register('regionleader', event.id, { person_id, role });
    const p1 = await person('Veg swimmer', true, true);
    const p2 = await person('Meat sinker', false, false);
    const p3 = await person('Veg sinker', true, false);
    const p4 = await person('Waiting sinker', true, false);
    const h1 = await person('Helper veg sinker', true, false);
    const l1 = await person('Leader swimmer', false, true);
    const first = await reg(p1);
    await reg(p2);
    await reg(p3);
    expect((await reg(p4)).state).toBe('waitlisted');
    const cancelled = await reg(await person('Cancelled sinker', true, false));
    expect((await patch('regionleader', cancelled.id, { state: 'cancelled' })).statusCode).toBe(200);
    const helper = await reg(h1, 'helper');
    await reg(l1, 'leader');
    // Two pending registrations, one of them rejected.
    expect((await w.call('regionleader', 'PATCH', `/events/${event.id}`, { requires_approval: true })).statusCode).toBe(200);
    await reg(await person('Pending sinker', true, false));
    const rejected = await reg(await person('Rejected sinker', true, false));
    expect((await patch('regionleader', rejected.id, { state: 'rejected' })).statusCode).toBe(200);
    await patch('regionleader', first.id, { attended: true });
    await patch('regionleader', helper.id, { attended: true });

    const answer = await w.call('regionleader', 'GET', `/events/${event.id}/summary`);
    expect(answer.statusCode, answer.body).toBe(200);
    const summary = answer.json().data.summary;
    expect(Object.keys(summary)).toEqual(['accepted', 'pending', 'waitlisted', 'cancelled', 'rejected', 'helpers', 'leaders', 'vegetarians', 'non_swimmers', 'attended']);
    expect({ ...summary, non_swimmers: undefined }).toEqual({
      accepted: 3, pending: 1, waitlisted: 1, cancelled: 1, rejected: 1, helpers: 1, leaders: 1, vegetarians: 3, non_swimmers: undefined, attended: 2,
    });
    for (const item of summary.non_swimmers) expect(Object.keys(item)).toEqual(['id', 'firstname', 'lastname']);
    expect([...summary.non_swimmers].sort((x: { id: number }, y: { id: number }) => x.id - y.id)).toEqual([
      { id: p2, firstname: 'Meat sinker', lastname: 'Kid' },
      { id: p3, firstname: 'Veg sinker', lastname: 'Kid' },
      { id: h1, firstname: 'Helper veg sinker', lastname: 'Kid' },
    ]);

    for (const who of ['member', 'troopleader', 'observer']) {
      const refused = await w.call(who, 'GET', `/events/${event.id}/summary`);
      expect(refused.statusCode, who).toBe(403);
      expect(refused.json()).toEqual(UNAUTHORIZED);
    }
    expect((await w.call('outsider', 'GET', `/events/${event.id}/summary`)).json()).toEqual({ success: false, message: 'Event not found.' });
  });

  describe('participant CSV', () => {
    const csvOf = (who: string, eventId: number, query = '') =>
      w.call(who, 'GET', `/events/${eventId}/participations${query}`, undefined, { accept: 'text/csv' });

    it('exports every participant with the listed columns, intact through a real CSV parser, formulas neutralised', async () => {
      const event = await camp({ capacity: 2 });
      const tricky = await kid('=SUM(A1:A9)', {
        lastname: 'Berg, "the 1st"\nof Bern', is_vegetarian: true, can_swimm: false, phonenumber: '+41 31 123 45 67', phonenumber_mobile: '079 123',
      });
      const second = await kid('@Ann', { lastname: '-Minus', is_vegetarian: false, can_swimm: true, email: 'ann@example.com' });
      const third = await kid('\tTab', { lastname: 'Ünïcödé, Zoë' });
      const a = await w.register('regionleader', event.id, { person_id: tricky, notes: '=HYPERLINK("http://x")\r\nline two' });
      const b = await w.register('regionleader', event.id, { person_id: second, notes: '\rstarts with CR' });
      const c = await w.register('regionleader', event.id, { person_id: third, role: 'helper' });
      const d = await w.register('regionleader', event.id, { person_id: await kid('Wait', { lastname: 'Plain' }) });
      await patch('regionleader', a.id, { attended: true });
      await patch('regionleader', b.id, { attended: false });

      const answer = await csvOf('regionleader', event.id);
      expect(answer.statusCode).toBe(200);
      expect(String(answer.headers['content-type'])).toMatch(/^text\/csv/);
      expect(String(answer.headers['content-disposition'])).toMatch(/^attachment/);
      const body = answer.body;
      expect(body.charCodeAt(0)).not.toBe(0xfeff);
      expect(body.startsWith(`${CSV_COLUMNS.join(',')}\r\n`)).toBe(true);
      expect(body.endsWith('\r\n')).toBe(true);
      const rows = parse(body, { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
      expect(Object.keys(rows[0]!)).toEqual(CSV_COLUMNS);
      const byId = new Map(rows.map((row) => [Number(row.id), row]));
      expect(rows).toHaveLength(4);
      expect(byId.get(a.id)).toEqual({
        id: String(a.id), person_id: String(tricky), firstname: "'=SUM(A1:A9)", lastname: 'Berg, "the 1st"\nof Bern', role: 'participant',
        state: 'accepted', waitlist_position: '', attended: 'true', is_vegetarian: 'true', can_swimm: 'false', email: '',
        phonenumber: "'+41 31 123 45 67", phonenumber_mobile: '079 123', notes: '\'=HYPERLINK("http://x")\r\nline two',
      });
      expect(byId.get(b.id)).toMatchObject({
        firstname: "'@Ann", lastname: "'-Minus", attended: 'false', is_vegetarian: 'false', can_swimm: 'true', email: 'ann@example.com',
        phonenumber: '', notes: "'\rstarts with CR",
      });
      expect(byId.get(c.id)).toMatchObject({ firstname: "'\tTab", lastname: 'Ünïcödé, Zoë', role: 'helper', state: 'accepted', attended: '' });
      expect(byId.get(d.id)).toMatchObject({ firstname: 'Wait', lastname: 'Plain', state: 'waitlisted', waitlist_position: '1' });
    });

    it('exports every page at once', async () => {
      const event = await camp();
      const expected: number[] = [];
      for (let i = 0; i < 55; i++) expected.push((await w.register('regionleader', event.id, { person_id: await kid(`Many ${i}`) })).id);
      const rows = parse((await csvOf('regionleader', event.id)).body, { columns: true }) as Record<string, string>[];
      expect(rows.map((row) => Number(row.id)).sort((x, y) => x - y)).toEqual(expected);
    });

    it('starts after `cursor` like the JSON list, and refuses a cursor it did not give with 422', async () => {
      const event = await camp();
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await w.register('regionleader', event.id, { person_id: await kid(`Paged ${i}`) })).id);
      const first = await w.call('regionleader', 'GET', `/events/${event.id}/participations?limit=2`);
      const cursor = first.json().data.next_cursor as string;
      const rest = parse((await csvOf('regionleader', event.id, `?cursor=${encodeURIComponent(cursor)}`)).body, { columns: true }) as Record<string, string>[];
      expect(rest.map((row) => Number(row.id))).toEqual(ids.slice(2));
      const refused = await csvOf('regionleader', event.id, '?cursor=garbage');
      expect(refused.statusCode).toBe(422);
      expect(Object.keys(refused.json().errors)).toEqual(['cursor']);
    });

    it('is for managers only', async () => {
      const event = await camp();
      await w.register('member', event.id, { person_id: w.ids.member });
      await w.register('parent', event.id, { person_id: w.ids.child });
      for (const who of ['member', 'parent', 'troopleader', 'observer']) {
        const refused = await csvOf(who, event.id);
        expect(refused.statusCode, who).toBe(403);
        expect(refused.json(), who).toEqual(UNAUTHORIZED);
      }
      expect((await csvOf('outsider', event.id)).statusCode).toBe(404);
    });
  });
});
