import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, type World } from '../../helpers/events.js';

const MEMBERSHIP_FIELDS = ['id', 'person_id', 'group_id', 'role_type', 'label', 'start_on', 'end_on', 'created_at', 'updated_at'];

/** The bulk forms of memberships (docs/api/groups-people-memberships.md, "Bulk forms"): all or nothing. */
describe('bulk memberships', () => {
  let w: World;
  let kids: number[];
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
    kids = [];
    for (const name of ['Ada', 'Ben', 'Cleo']) kids.push(await w.person(w.troopA, name, 'Bulk'));
  }, 60_000);
  afterAll(() => w?.t.close());

  const activeIn = async (groupId: number) =>
    ((await w.call('admin', 'GET', `/groups/${groupId}/memberships?limit=200`)).json().data.memberships as { person_id: number; role_type: string }[]);

  it('adds the same membership for several people, in the order given', async () => {
    const answer = await w.call('regionleader', 'POST', '/memberships', { person_ids: [kids[1], kids[0]], group_id: w.troopB, role_type: 'member', label: 'Guests' });
    expect(answer.statusCode, answer.body).toBe(201);
    expect(answer.headers.etag).toBeUndefined();
    const { memberships } = answer.json().data;
    expect(Object.keys(memberships[0])).toEqual(MEMBERSHIP_FIELDS);
    expect(memberships.map((m: { person_id: number; label: string }) => [m.person_id, m.label])).toEqual([[kids[1], 'Guests'], [kids[0], 'Guests']]);
    expect((await activeIn(w.troopB)).map((m) => m.person_id).sort()).toEqual([kids[0], kids[1]].sort());
  });

  it('adds no one when one person is refused, each refusal keyed by its index', async () => {
    const outsider = await w.person(w.other, 'Otto', 'Outside');
    const refused = await w.call('regionleader', 'POST', '/memberships', { person_ids: [kids[2], kids[0], outsider], group_id: w.troopB, role_type: 'member' });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toEqual({
      success: false,
      message: 'The person already has this role in this group. (and 1 more error)',
      errors: { 'person_ids.1': ['The person already has this role in this group.'], 'person_ids.2': ['Person not found.'] },
    });
    const twice = await w.call('regionleader', 'POST', '/memberships', { person_ids: [kids[2], kids[0]], group_id: w.troopB, role_type: 'member' });
    expect(twice.statusCode, twice.body).toBe(422);
    expect(twice.json().errors).toEqual({ 'person_ids.1': ['The person already has this role in this group.'] });
    expect((await activeIn(w.troopB)).map((m) => m.person_id)).not.toContain(kids[2]);
  });

  it('refuses the request as a whole with the single form\'s status: no write on the group, a role above one\'s own', async () => {
    const member = await w.call('member', 'POST', '/memberships', { person_ids: [kids[0]], group_id: w.troopA, role_type: 'member' });
    expect(member.statusCode, member.body).toBe(403);
    const above = await w.call('troopleader', 'POST', '/memberships', { person_ids: [kids[0]], group_id: w.troopA, role_type: 'admin' });
    expect(above.statusCode, above.body).toBe(403);
    const noGroup = await w.call('admin', 'POST', '/memberships', { person_ids: [kids[0]], group_id: 999_999, role_type: 'member' });
    expect(noGroup.statusCode, noGroup.body).toBe(404);
    const body = await w.call('admin', 'POST', '/memberships', { person_ids: [kids[0], kids[0]], group_id: w.troopA, role_type: 'member', end_on: 'soon' });
    expect(body.statusCode, body.body).toBe(422);
    expect(body.json().errors).toEqual({ 'person_ids.1': ['The person ids.1 field has a duplicate value.'], end_on: ['The end on field must be a valid date.'] });
    const both = await w.call('admin', 'POST', '/memberships', { person_id: kids[0], person_ids: [kids[1]], group_id: w.troopA, role_type: 'member' });
    expect(both.json().errors).toEqual({ person_ids: ['The person ids field prohibits person id from being present.'] });
  });

  it('ends several memberships on a chosen day in one request', async () => {
    const created = (await w.call('admin', 'POST', '/memberships', { person_ids: kids, group_id: w.other, role_type: 'member' })).json().data.memberships as { id: number }[];
    const answer = await w.call('admin', 'PATCH', '/memberships', { memberships: created.map(({ id }) => ({ id, end_on: '2099-12-31' })) });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().data.memberships.map((m: { id: number; end_on: string }) => [m.id, m.end_on])).toEqual(created.map(({ id }) => [id, '2099-12-31']));
  });

  it('changes nothing when one item is refused: each membership checked against its own group', async () => {
    const [inA] = (await w.call('admin', 'POST', '/memberships', { person_ids: [kids[0]], group_id: w.troopA, role_type: 'assistant' })).json().data.memberships as { id: number }[];
    const [inOther] = (await w.call('admin', 'POST', '/memberships', { person_ids: [kids[1]], group_id: w.other, role_type: 'assistant' })).json().data.memberships as { id: number }[];
    const refused = await w.call('troopleader', 'PATCH', '/memberships', {
      memberships: [{ id: inA!.id, end_on: '2099-01-01' }, { id: inOther!.id, end_on: '2099-01-01' }, { id: 999_999, end_on: '2099-01-01' }, { id: inA!.id, label: 'x', role_type: 'leader' }],
    });
    expect(refused.statusCode, refused.body).toBe(422);
    // The body's own problems first, every one: a fixed field, and the repeated membership.
    expect(refused.json().errors).toEqual({
      'memberships.3.role_type': ['The memberships.3.role type field is prohibited.'],
      'memberships.3': ['The memberships.3 field has a duplicate value.'],
    });
    // The troop's leader sees kids[1] (a member of troop A), so its membership in `other` is not theirs to change.
    const items = await w.call('troopleader', 'PATCH', '/memberships', {
      memberships: [{ id: inA!.id, end_on: '2099-01-01' }, { id: inOther!.id, end_on: '2099-01-01' }, { id: 999_999, end_on: '2099-01-01' }],
    });
    expect(items.statusCode, items.body).toBe(422);
    expect(items.json().errors).toEqual({ 'memberships.1.id': ['This action is unauthorized.'], 'memberships.2.id': ['Membership not found.'] });
    const dates = await w.call('troopleader', 'PATCH', '/memberships', { memberships: [{ id: inA!.id, end_on: '2000-01-01' }] });
    expect(dates.json().errors).toEqual({ 'memberships.0.end_on': ['The end on field must be a date after or equal to start on.'] });
    const held = (await w.call('admin', 'GET', `/people/${kids[0]}/memberships`)).json().data.memberships as { id: number; end_on: string | null }[];
    expect(held.find((m) => m.id === inA!.id)).toMatchObject({ end_on: null });
  });

  it('applies the last-administrator rule to the set as a whole', async () => {
    const second = await w.person(w.root, 'Sam', 'Second');
    const [extra] = (await w.call('admin', 'POST', '/memberships', { person_ids: [second], group_id: w.root, role_type: 'admin' })).json().data.memberships as { id: number }[];
    const mine = ((await w.call('admin', 'GET', `/people/${w.ids.admin}/memberships`)).json().data.memberships as { id: number; role_type: string; group_id: number }[]).find(
      (m) => m.role_type === 'admin' && m.group_id === w.root,
    )!;
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const both = await w.call('admin', 'PATCH', '/memberships', { memberships: [{ id: extra!.id, end_on: yesterday, start_on: '2000-01-01' }, { id: mine.id, end_on: yesterday }] });
    expect(both.statusCode, both.body).toBe(422);
    expect(both.json()).toEqual({ success: false, message: 'The last administrator cannot be removed.', errors: { memberships: ['The last administrator cannot be removed.'] } });
    const one = await w.call('admin', 'PATCH', '/memberships', { memberships: [{ id: extra!.id, start_on: '2000-01-01', end_on: yesterday }] });
    expect(one.statusCode, one.body).toBe(200);
  });
});
