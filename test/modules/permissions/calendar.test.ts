import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayIn } from '../../../src/modules/permissions/calendar.js';

/** The date a fresh formatter gives: what dayIn must answer, whatever it asked before. */
const formatted = (timeZone: string, moment: Date) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(moment);

// Zones whose midnight falls on a half or three-quarter UTC hour, one with a summer time, and
// Monrovia, whose offset was -0:44:30 until 1972 (its midnight then fell inside a UTC minute).
const ZONES = ['UTC', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/St_Johns', 'Europe/Berlin', 'Africa/Monrovia'];

describe('dayIn', () => {
  it('gives the date in the zone for any sequence of moments, also around midnight', () => {
    const nearMidnights = fc.tuple(fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 24 * 4 - 1 }), fc.integer({ min: -90_000, max: 90_000 }));
    fc.assert(
      fc.property(fc.array(fc.oneof(nearMidnights.map(([zone, quarter, ms]) => ({ zone, at: Date.UTC(2026, 2, 29) + quarter * 900_000 + ms })),
        fc.record({ zone: fc.constantFrom(...ZONES), at: fc.integer({ min: Date.UTC(1960, 0, 1), max: Date.UTC(2100, 0, 1) }) })), { minLength: 1, maxLength: 30 }), (asks) => {
        for (const { zone, at } of asks) expect(dayIn(zone, new Date(at)), `${zone} ${new Date(at).toISOString()}`).toBe(formatted(zone, new Date(at)));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the new date from the moment it begins, also where that is not on a UTC hour, or not on a minute', () => {
    // Kolkata is UTC+5:30: its day begins at 18:30 UTC.
    const start = Date.UTC(2026, 10, 24, 18, 29, 59, 999);
    expect(dayIn('Asia/Kolkata', new Date(start))).toBe('2026-11-24');
    expect(dayIn('Asia/Kolkata', new Date(start + 1))).toBe('2026-11-25');
    expect(dayIn('Asia/Kolkata', new Date(start))).toBe('2026-11-24');
    // Monrovia in 1950 (-0:44:30): midnight at 00:44:30 UTC, inside a minute.
    const old = Date.UTC(1950, 5, 1, 0, 44, 29, 999);
    expect(dayIn('Africa/Monrovia', new Date(old))).toBe('1950-05-31');
    expect(dayIn('Africa/Monrovia', new Date(old + 1))).toBe('1950-06-01');
    expect(dayIn('Africa/Monrovia', new Date(old))).toBe('1950-05-31');
  });
});
