import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { registrationOpen } from '../../../src/modules/participations/who-may-register.js';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';

const UNAUTHORIZED = { success: false, message: 'This action is unauthorized.' };
const CLOSED = { success: false, message: 'Registration is closed.', errors: { event: ['Registration is closed.'] } };
const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

/**
 * Who may register whom, and when (docs/rules/waiting-list.md, "Who may register"): a person
 * registers themself, and a guardian a ward, only when that person is a member of the event's group
 * or a group below it, or reads the group; registration closes at the start when no closing is set.
 */
describe('who may register whom, and when', () => {
  let w: World;
  let otherWard: number;
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
    // A second ward of `parent`, a member of `other` only: the region's events are not for them.
    otherWard = await w.person(w.other, 'Olive', 'Other');
    expect((await w.call('admin', 'POST', `/people/${otherWard}/guardians`, { guardian_id: w.ids.parent })).statusCode).toBe(201);
  }, 60_000);
  afterAll(() => w?.t.close());

  const regionCamp = (fields: Record<string, unknown> = {}) =>
    w.event('regionleader', { group_id: w.region, name: 'Region camp', starts_at: daysFromNow(30), ends_at: daysFromNow(32), ...fields });
  const post = (who: string, eventId: number, body: Record<string, unknown>) => w.call(who, 'POST', `/events/${eventId}/participations`, body);

  it('lets a member of a group below register themself, and a guardian register a ward who is one', async () => {
    const camp = await regionCamp();
    expect((await post('member', camp.id, { person_id: w.ids.member })).statusCode).toBe(201);
    const ward = await post('parent', camp.id, { person_id: w.ids.child, notes: 'Hay fever' });
    expect(ward.statusCode, ward.body).toBe(201);
  });

  it('lets someone who reads the group without a membership there register themself', async () => {
    const camp = await regionCamp();
    const own = await post('observer', camp.id, { person_id: w.ids.observer });
    expect(own.statusCode, own.body).toBe(201);
  });

  it('refuses a guardian who sees the event only through a ward to register themself (403)', async () => {
    const camp = await regionCamp();
    // The parent sees the camp (their ward is a member below the region) ...
    expect((await w.call('parent', 'GET', `/events/${camp.id}`)).statusCode).toBe(200);
    // ... but is not a member there themself.
    const own = await post('parent', camp.id, { person_id: w.ids.parent });
    expect(own.statusCode, own.body).toBe(403);
    expect(own.json()).toEqual(UNAUTHORIZED);
  });

  it('refuses a ward who is not a member of the group or below it (403), and writes nothing', async () => {
    const camp = await regionCamp();
    const refused = await post('parent', camp.id, { person_id: otherWard });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json()).toEqual(UNAUTHORIZED);
    expect(await w.participations(camp.id)).toEqual([]);
  });

  it("lets the event's managers register anyone they see, members of the group or not", async () => {
    // A meeting of troop A; the region's leader manages it and sees troop B's members too.
    const meeting = await w.event('regionleader', { group_id: w.troopA, name: 'Troop A meeting', starts_at: daysFromNow(3), ends_at: daysFromNow(3) });
    const fromTroopB = await w.person(w.troopB, 'Bea', 'Bee');
    const registered = await post('regionleader', meeting.id, { person_id: fromTroopB });
    expect(registered.statusCode, registered.body).toBe(201);
  });

  it('closes registration at the start when no closing is set: after it only managers register', async () => {
    const started = await regionCamp({ starts_at: hoursFromNow(-1), ends_at: hoursFromNow(24) });
    const late = await post('member', started.id, { person_id: w.ids.member });
    expect(late.statusCode, late.body).toBe(422);
    expect(late.json()).toEqual(CLOSED);
    expect((await post('regionleader', started.id, { person_id: w.ids.troopleader })).statusCode).toBe(201);
    const soon = await regionCamp({ starts_at: hoursFromNow(1), ends_at: hoursFromNow(24) });
    expect((await post('member', soon.id, { person_id: w.ids.member })).statusCode).toBe(201);
  });

  it('answers who may register before whether registration is open (403 before 422)', async () => {
    const started = await regionCamp({ starts_at: hoursFromNow(-1), ends_at: hoursFromNow(24) });
    expect((await post('parent', started.id, { person_id: otherWard })).statusCode).toBe(403);
  });

  it('counts the opening moment in and the closing moment out', () => {
    const event = { registration_opens_at: '2027-05-01 10:00:00.000000', registration_closes_at: '2027-06-01 10:00:00.000000', starts_at: '2027-07-01 08:00:00.000000' };
    expect(registrationOpen(event, '2027-05-01 09:59:59.999999')).toBe(false);
    expect(registrationOpen(event, '2027-05-01 10:00:00.000000')).toBe(true);
    expect(registrationOpen(event, '2027-06-01 09:59:59.999999')).toBe(true);
    expect(registrationOpen(event, '2027-06-01 10:00:00.000000')).toBe(false);
    const noBounds = { registration_opens_at: null, registration_closes_at: null, starts_at: '2027-07-01 08:00:00.000000' };
    expect(registrationOpen(noBounds, toDbTimestamp(new Date('2027-07-01T07:59:59.999Z')))).toBe(true);
    expect(registrationOpen(noBounds, toDbTimestamp(new Date('2027-07-01T08:00:00.000Z')))).toBe(false);
  });
});
