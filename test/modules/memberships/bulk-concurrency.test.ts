import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, type World } from '../../helpers/events.js';

/**
 * Two bulk writes over the same people in opposite orders, at once: the people's memberships are
 * locked in the order of their ids, so the requests take turns (on PostgreSQL, where rows lock)
 * and neither is a 500 of a deadlock.
 */
describe('bulk memberships at once', () => {
  let w: World;
  let kids: number[];
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
    kids = [];
    for (let i = 0; i < 12; i++) kids.push(await w.person(w.troopA, `Kid${i}`, 'Race'));
  }, 60_000);
  afterAll(() => w?.t.close());

  it('two PATCH /memberships over the same memberships in opposite orders both succeed', async () => {
    const created = (await w.call('admin', 'POST', '/memberships', { person_ids: kids, group_id: w.other, role_type: 'member' })).json().data.memberships as { id: number }[];
    const statuses: number[] = [];
    for (let round = 0; round < 5; round++) {
      const day = `2099-01-${String(round + 10).padStart(2, '0')}`;
      const forward = created.map(({ id }) => ({ id, end_on: day }));
      const backward = [...forward].reverse();
      const answers = await Promise.all([
        w.call('admin', 'PATCH', '/memberships', { memberships: forward }),
        w.call('admin', 'PATCH', '/memberships', { memberships: backward }),
      ]);
      statuses.push(...answers.map((a) => a.statusCode));
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  }, 60_000);

  it('two POST /memberships for the same people in opposite orders: no 500', async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 5; round++) {
      const label = `round ${round}`;
      const start = `2098-0${round + 1}-01`;
      const end = `2098-0${round + 1}-15`;
      const answers = await Promise.all([
        w.call('admin', 'POST', '/memberships', { person_ids: kids, group_id: w.troopB, role_type: 'member', start_on: start, end_on: end, label }),
        w.call('regionleader', 'POST', '/memberships', { person_ids: [...kids].reverse(), group_id: w.troopB, role_type: 'assistant', start_on: start, end_on: end, label }),
      ]);
      statuses.push(...answers.map((a) => a.statusCode));
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  }, 60_000);
});
