import { describe, expect, it } from 'vitest';
import { toApiTimestamp, toDbTimestamp } from '../../src/lib/time.js';

describe('timestamps', () => {
  it('are stored as UTC text with microseconds', () => {
    expect(toDbTimestamp(new Date('2026-11-21T09:30:05.123Z'))).toBe('2026-11-21 09:30:05.123000');
  });

  it.each([
    ['2026-11-21 09:30:05.123000', '2026-11-21T09:30:05.123000Z'],
    ['2026-11-21 09:30:05', '2026-11-21T09:30:05.000000Z'],
    ['2026-11-21 09:30:05.12', '2026-11-21T09:30:05.120000Z'],
    ['2026-11-21T09:30:05.1234567Z', '2026-11-21T09:30:05.123456Z'],
    ['2026-11-21 09:30:05.1234567', '2026-11-21T09:30:05.123456Z'],
    ['2026-11-21 09:30:05+00', '2026-11-21T09:30:05.000000Z'],
  ])('%s is shown as %s', (stored, shown) => {
    expect(toApiTimestamp(stored)).toBe(shown);
  });

  it('shows Date values in the same form', () => {
    expect(toApiTimestamp(new Date('2026-11-21T09:30:05.5Z'))).toBe('2026-11-21T09:30:05.500000Z');
  });
});
