import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';

/**
 * The bulk forms refuse the request as a whole before they look at its list, name every refused
 * item at once, and apply the last-administrator rule to the set as a whole
 * (docs/api/conventions.md, "Bulk forms").
 */
describe('bulk forms: the order of refusals, and every refusal named', () => {
  let w: World;
  let kids: number[];
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
    kids = [];
    for (const name of ['Ada', 'Ben', 'Cleo', 'Dan']) kids.push(await w.person(w.troopA, name, 'Review'));
  }, 60_000);
  afterAll(() => w?.t.close());

  const camp = (fields: Record<string, unknown> = {}) =>
    w.event('regionleader', { group_id: w.region, name: 'Review camp', starts_at: daysFromNow(20), ends_at: daysFromNow(22), ...fields });

  // A member who sees the event but manages nothing gets 403, not a 422 about the list.
  it('POST: a non-manager is refused as a whole (403) before the list is checked', async () => {
    const event = await camp();
    const answer = await w.call('member', 'POST', `/events/${event.id}/participations`, { person_ids: [] });
    expect(answer.statusCode, answer.body).toBe(403);
  });

  it('PATCH: a non-manager is refused as a whole (403) before the list is checked', async () => {
    const event = await camp();
    const answer = await w.call('member', 'PATCH', `/events/${event.id}/participations`, { participations: [{ id: 1 }, { id: 1 }] });
    expect(answer.statusCode, answer.body).toBe(403);
  });

  // PATCH /events/{id}/participations needs `events:write`: a token without it hears that before anything else.
  it('PATCH: a token without events:write hears the ability first, also on an event it does not see', async () => {
    const event = await camp();
    const readOnly = await w.tokenWith('outsider', ['events:read']);
    const answer = await w.callWith(readOnly, 'PATCH', `/events/${event.id}/participations`, { participations: [{ id: 1, attended: true }] });
    expect(answer.json(), answer.body).toEqual({ success: false, message: 'Invalid ability provided.' });
  });

  // Every refused item keyed by its index: an unseen person and a full event together.
  it('POST: every refused item is named, the unseen and the full together', async () => {
    const event = await camp({ capacity: 2, waiting_list: false });
    const outsider = await w.person(w.other, 'Otto', 'Unseen');
    const answer = await w.call('regionleader', 'POST', `/events/${event.id}/participations`, { person_ids: [kids[0], kids[1], outsider, kids[2]] });
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().errors).toEqual({ 'person_ids.2': ['Person not found.'], 'person_ids.3': ['The event is full.'] });
  });

  it('POST /memberships: every refused item is named, the unseen and the one holding the role already', async () => {
    const outsider = await w.person(w.other, 'Olga', 'Unseen');
    // kids[0] is a member of troop A already.
    const answer = await w.call('regionleader', 'POST', '/memberships', { person_ids: [kids[0], outsider], group_id: w.troopA, role_type: 'member' });
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().errors).toEqual({
      'person_ids.0': ['The person already has this role in this group.'],
      'person_ids.1': ['Person not found.'],
    });
  });

  // The last-administrator rule over the set as a whole: a set that starts another administration
  // today while ending one's own leaves the tenant an administrator.
  it('PATCH /memberships: a set that hands the administration over is not the last administrator', async () => {
    const successor = await w.person(w.root, 'Sue', 'Successor');
    const start = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const granted = await w.call('admin', 'POST', '/memberships', { person_id: successor, group_id: w.root, role_type: 'admin', start_on: start });
    expect(granted.statusCode, granted.body).toBe(201);
    const future = granted.json().data.membership.id as number;
    const mine = ((await w.call('admin', 'GET', `/people/${w.ids.admin}/memberships`)).json().data.memberships as { id: number; role_type: string; group_id: number; start_on: string }[]).find(
      (m) => m.role_type === 'admin' && m.group_id === w.root,
    )!;
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const answer = await w.call('admin', 'PATCH', '/memberships', {
      memberships: [
        { id: future, start_on: '2000-01-01' },
        { id: mine.id, start_on: '2000-01-01', end_on: yesterday },
      ],
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });
});
