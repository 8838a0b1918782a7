import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';

/**
 * The bulk forms of an event's participations (docs/api/events-and-registration.md, "Bulk forms"):
 * several registrations or changes in one request, all or nothing, each item by its single form's rules.
 */
describe('bulk registrations and changes of an event', () => {
  let w: World;
  let kids: number[];
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
    kids = [];
    for (const name of ['Ada', 'Ben', 'Cleo', 'Dan', 'Eve']) kids.push(await w.person(w.troopA, name, 'Bulk'));
  }, 60_000);
  afterAll(() => w?.t.close());

  const camp = (fields: Record<string, unknown> = {}) =>
    w.event('regionleader', { group_id: w.region, name: 'Bulk camp', starts_at: daysFromNow(20), ends_at: daysFromNow(22), ...fields });
  const registerMany = (eventId: number, body: unknown, who = 'regionleader') => w.call(who, 'POST', `/events/${eventId}/participations`, body);
  const changeMany = (eventId: number, body: unknown, who = 'regionleader') => w.call(who, 'PATCH', `/events/${eventId}/participations`, body);

  it('registers several people in the order given, as single registrations one after the other', async () => {
    const event = await camp({ capacity: 2, waiting_list: true });
    const answer = await registerMany(event.id, { person_ids: [kids[2], kids[0], kids[1]] });
    expect(answer.statusCode, answer.body).toBe(201);
    expect(answer.headers.etag).toBeUndefined();
    const { participations } = answer.json().data;
    expect(participations.map((p: { person_id: number }) => p.person_id)).toEqual([kids[2], kids[0], kids[1]]);
    expect(participations.map((p: { state: string }) => p.state)).toEqual(['accepted', 'accepted', 'waitlisted']);
    expect(participations[2].waitlist_position).toBe(1);
    expect(participations[0]).toHaveProperty('notes', null);
    const stored = await w.participations(event.id);
    expect(stored).toHaveLength(3);
    const counts = (await w.call('admin', 'GET', `/events/${event.id}`)).json().data.event;
    expect([counts.participants_count, counts.waitlist_count]).toEqual([2, 1]);
  });

  it('registers helpers in a role given once for all', async () => {
    const event = await camp();
    const answer = await registerMany(event.id, { person_ids: [kids[3], kids[4]], role: 'helper' });
    expect(answer.statusCode, answer.body).toBe(201);
    expect(answer.json().data.participations.map((p: { role: string }) => p.role)).toEqual(['helper', 'helper']);
  });

  it('registers no one when one person is refused, naming each refused item by its index', async () => {
    const event = await camp({ capacity: 1, waiting_list: false });
    await w.register('regionleader', event.id, { person_id: kids[1] });
    const outsider = await w.person(w.other, 'Otto', 'Outside');
    // kids[1] is registered already; 999999 does not exist; the outsider is not seen by the region's leader.
    const refused = await registerMany(event.id, { person_ids: [kids[0], kids[1], 999_999, outsider] });
    expect(refused.statusCode, refused.body).toBe(422);
    // Every refusal at once: the full event, the registered one, and those not seen (nothing more of them).
    expect(refused.json()).toEqual({
      success: false,
      message: 'The event is full. (and 3 more errors)',
      errors: {
        'person_ids.0': ['The event is full.'],
        'person_ids.1': ['The person is already registered.'],
        'person_ids.2': ['Person not found.'],
        'person_ids.3': ['Person not found.'],
      },
    });
    const rules = await registerMany(event.id, { person_ids: [kids[0], kids[1], kids[2]] });
    expect(rules.statusCode, rules.body).toBe(422);
    // kids[1] took the only seat and is registered; the others find the event full.
    expect(rules.json().errors).toEqual({
      'person_ids.0': ['The event is full.'],
      'person_ids.1': ['The person is already registered.'],
      'person_ids.2': ['The event is full.'],
    });
    expect((await w.participations(event.id)).map((p) => p.person_id)).toEqual([kids[1]]);
  });

  it('checks the body as a whole first: required, at most 200, no repeats, ids, not with person_id', async () => {
    const event = await camp();
    const errorsOf = async (body: unknown) => {
      const answer = await registerMany(event.id, body);
      expect(answer.statusCode, answer.body).toBe(422);
      return answer.json().errors;
    };
    expect(await errorsOf({ person_ids: [] })).toEqual({ person_ids: ['The person ids field is required.'] });
    expect(await errorsOf({ person_ids: Array.from({ length: 201 }, (_, i) => i + 1) })).toEqual({
      person_ids: ['The person ids field must not have more than 200 items.'],
    });
    expect(await errorsOf({ person_ids: [kids[0], kids[1], kids[0]] })).toEqual({ 'person_ids.2': ['The person ids.2 field has a duplicate value.'] });
    expect(await errorsOf({ person_ids: [kids[0], 'x'], role: 'chief' })).toEqual({
      'person_ids.1': ['The person ids.1 field must be an integer.'],
      role: ['The selected role is invalid.'],
    });
    expect(await errorsOf({ person_id: kids[0], person_ids: [kids[1]] })).toEqual({ person_ids: ['The person ids field prohibits person id from being present.'] });
    // The single form is unchanged.
    expect(await errorsOf({})).toEqual({ person_id: ['The person id field is required.'] });
    expect(await w.participations(event.id)).toEqual([]);
  });

  it('is for managers with events:write: others get the single form\'s 403, an unseen event 404', async () => {
    const event = await camp();
    const member = await registerMany(event.id, { person_ids: [w.ids.member] }, 'member');
    expect(member.statusCode, member.body).toBe(403);
    expect(member.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    const readOnly = await w.tokenWith('regionleader', ['events:read']);
    const narrow = await w.callWith(readOnly, 'POST', `/events/${event.id}/participations`, { person_ids: [kids[0]] });
    expect(narrow.statusCode, narrow.body).toBe(403);
    expect(narrow.json()).toEqual({ success: false, message: 'Invalid ability provided.' });
    const unseen = await registerMany(event.id, { person_ids: [kids[0]] }, 'outsider');
    expect(unseen.statusCode, unseen.body).toBe(404);
    expect(await w.participations(event.id)).toEqual([]);
  });

  it('changes several participations at once: approvals and attendance in one request', async () => {
    const event = await camp({ requires_approval: true });
    const created = (await registerMany(event.id, { person_ids: kids.slice(0, 4) })).json().data.participations as { id: number; state: string }[];
    expect(created.every((p) => p.state === 'pending')).toBe(true);
    const approved = await changeMany(event.id, {
      participations: [
        { id: created[0]!.id, state: 'accepted', attended: true },
        { id: created[1]!.id, state: 'accepted' },
        { id: created[2]!.id, state: 'rejected' },
      ],
    });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().data.participations.map((p: { id: number; state: string; attended: boolean | null }) => [p.id, p.state, p.attended])).toEqual([
      [created[0]!.id, 'accepted', true],
      [created[1]!.id, 'accepted', null],
      [created[2]!.id, 'rejected', null],
    ]);
    expect((await w.participations(event.id)).find((p) => p.id === created[3]!.id)?.state).toBe('pending');
  });

  it('lets each item see the earlier ones\' effects: a cancellation promotes, and the promoted one is marked attended', async () => {
    const event = await camp({ capacity: 1, waiting_list: true });
    const [first, second] = (await registerMany(event.id, { person_ids: [kids[0], kids[1]] })).json().data.participations as { id: number }[];
    const answer = await changeMany(event.id, { participations: [{ id: first!.id, state: 'cancelled' }, { id: second!.id, attended: true }] });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().data.participations.map((p: { state: string; attended: boolean | null; waitlist_position: number | null }) => [p.state, p.attended, p.waitlist_position])).toEqual([
      ['cancelled', null, null],
      ['accepted', true, null],
    ]);
  });

  it('changes nothing when one item is refused, keyed by the item and its field', async () => {
    const event = await camp();
    const other = await camp();
    const [mine] = (await registerMany(event.id, { person_ids: [kids[0]] })).json().data.participations as { id: number }[];
    const [theirs] = (await registerMany(other.id, { person_ids: [kids[1]] })).json().data.participations as { id: number }[];
    const refused = await changeMany(event.id, {
      participations: [
        { id: mine!.id, attended: true },
        { id: theirs!.id, attended: true },
        { id: mine!.id, state: 'pending' },
      ],
    });
    expect(refused.statusCode, refused.body).toBe(422);
    // The repeated id is refused before anything is tried.
    expect(refused.json().errors).toEqual({ 'participations.2': ['The participations.2 field has a duplicate value.'] });
    const items = await changeMany(event.id, {
      participations: [
        { id: mine!.id, attended: true },
        { id: theirs!.id, attended: true },
        { id: 999_999, state: 'cancelled' },
      ],
    });
    expect(items.statusCode, items.body).toBe(422);
    expect(items.json().errors).toEqual({ 'participations.1.id': ['Participation not found.'], 'participations.2.id': ['Participation not found.'] });
    const states = await changeMany(event.id, { participations: [{ id: mine!.id, state: 'pending' }] });
    expect(states.statusCode, states.body).toBe(422);
    expect(states.json().errors).toEqual({ 'participations.0.state': ['The state cannot change from accepted to pending.'] });
    const fields = await changeMany(event.id, { participations: [{ id: mine!.id, attended: 'yes', role: 'boss' }] });
    expect(fields.statusCode, fields.body).toBe(422);
    expect(fields.json().errors).toEqual({
      'participations.0.role': ['The selected participations.0.role is invalid.'],
      'participations.0.attended': ['The participations.0.attended field must be true or false.'],
    });
    const untouched = (await w.participations(event.id))[0]!;
    expect(untouched.attended).toBeNull();
    expect(await changeMany(event.id, { participations: [{ id: mine!.id, attended: true }] }, 'member').then((r) => r.statusCode)).toBe(403);
  });

  it('calls an event off: every live registration cancelled in one request with a message, then the event deleted', async () => {
    const event = await camp({ capacity: 1, waiting_list: true });
    const registered = (await registerMany(event.id, { person_ids: [kids[0], kids[1], kids[2]] })).json().data.participations as { id: number; state: string }[];
    expect(registered.map((p) => p.state)).toEqual(['accepted', 'waitlisted', 'waitlisted']);
    const long = await changeMany(event.id, { participations: [{ id: registered[0]!.id, state: 'cancelled' }], message: 'x'.repeat(2001) });
    expect(long.statusCode, long.body).toBe(422);
    expect(long.json().errors).toEqual({ message: ['The message field must not be greater than 2000 characters.'] });
    // Waitlisted first, then accepted: a cancellation never promotes someone about to be cancelled too.
    const order = [registered[2]!, registered[1]!, registered[0]!].map(({ id }) => ({ id, state: 'cancelled' }));
    const called = await changeMany(event.id, { participations: order, message: 'The bus broke down. Sorry!' });
    expect(called.statusCode, called.body).toBe(200);
    expect(called.json().data.participations.map((p: { state: string }) => p.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect((await w.call('regionleader', 'DELETE', `/events/${event.id}`)).statusCode).toBe(204);
    expect((await w.call('regionleader', 'GET', `/events/${event.id}`)).statusCode).toBe(404);
  });
});
