import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zonedToIso } from '../../web/src/i18n/index.js';
import { accessFrom, todayIn } from '../../web/src/permissions.js';

const groups = [
  { id: 1, parent_id: null, name: 'Root', kind: '' },
  { id: 2, parent_id: 1, name: 'Troop', kind: '' },
  { id: 3, parent_id: 2, name: 'Patrol', kind: '' },
  { id: 4, parent_id: 1, name: 'Other troop', kind: '' },
];
const roleTypes = [
  { key: 'admin', permission: 'admin' as const, scope: 'subtree' as const },
  { key: 'leader', permission: 'write' as const, scope: 'subtree' as const },
  { key: 'helper', permission: 'read' as const, scope: 'group' as const },
  { key: 'member', permission: 'none' as const, scope: 'group' as const },
];
const TODAY = '2026-11-24';
const membership = (group_id: number, role_type: string, start_on = '2020-01-01', end_on: string | null = null) => ({ group_id, role_type, start_on, end_on });

/** The web app's own reading of the permission rule (docs/rules/permissions.md), which decides what it offers. */
describe('the web app: permissions', () => {
  it('reaches the subtree with a subtree role and the group only with a group role', () => {
    const access = accessFrom(7, groups, roleTypes, [membership(2, 'leader'), membership(4, 'helper')], TODAY);
    expect([1, 2, 3, 4].map((id) => access.permissionOn(id))).toEqual(['none', 'write', 'write', 'read']);
    expect(access.atLeast(3, 'write')).toBe(true);
    expect(access.atLeast(3, 'admin')).toBe(false);
  });

  it('takes the highest of several memberships, and only those active today (both ends included)', () => {
    const memberships = [membership(1, 'helper'), membership(2, 'admin', '2026-11-25'), membership(3, 'leader', '2020-01-01', TODAY), membership(4, 'leader', '2020-01-01', '2026-11-23')];
    const access = accessFrom(7, groups, roleTypes, memberships, TODAY);
    expect([1, 2, 3, 4].map((id) => access.permissionOn(id))).toEqual(['read', 'none', 'write', 'none']);
  });

  it('ignores memberships of role types it does not know', () => {
    expect(accessFrom(7, groups, roleTypes, [membership(1, 'gone')], TODAY).permissionOn(3)).toBe('none');
  });
});

describe('the web app: times in the tenant time zone', () => {
  it('reads a typed wall-clock time in the tenant time zone, summer and winter', () => {
    expect(zonedToIso('2027-07-01T09:00', 'Europe/Zurich')).toBe('2027-07-01T07:00:00.000Z');
    expect(zonedToIso('2027-01-15T09:00', 'Europe/Zurich')).toBe('2027-01-15T08:00:00.000Z');
    expect(zonedToIso('2027-07-01T09:00', 'UTC')).toBe('2027-07-01T09:00:00.000Z');
    expect(zonedToIso('2027-07-01T09:00', 'America/New_York')).toBe('2027-07-01T13:00:00.000Z');
    // The night summer time ends, 02:30 happens twice: the later one (winter time) is taken.
    expect(zonedToIso('2026-10-25T02:30', 'Europe/Zurich')).toBe('2026-10-25T01:30:00.000Z');
  });

  it('shows back the same wall-clock time it read (outside the summer-time gaps)', () => {
    const zones = fc.constantFrom('Europe/Zurich', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney', 'UTC');
    fc.assert(
      fc.property(zones, fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }), (zone, ms) => {
        const moment = new Date(Math.floor(ms / 60_000) * 60_000);
        const wall = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
          .format(moment)
          .replace(' ', 'T');
        const read = new Date(zonedToIso(wall, zone));
        // Same wall clock in that zone (an ambiguous autumn hour may resolve to its other instant).
        const again = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
          .format(read)
          .replace(' ', 'T');
        expect(again).toBe(wall);
      }),
      { numRuns: 500 },
    );
  });

  it("tells today's date in the tenant time zone", () => {
    expect(todayIn('UTC')).toBe(new Date().toISOString().slice(0, 10));
    expect(todayIn('Pacific/Kiritimati') >= todayIn('Pacific/Pago_Pago')).toBe(true);
  });
});
