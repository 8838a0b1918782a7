import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atLeast, higher, PERMISSIONS } from '../../src/access/permissions.js';

describe('permission levels', () => {
  it('orders none < read < write < admin', () => {
    expect(atLeast('admin', 'write')).toBe(true);
    expect(atLeast('write', 'write')).toBe(true);
    expect(atLeast('read', 'write')).toBe(false);
    expect(atLeast('none', 'read')).toBe(false);
    expect(atLeast('none', 'none')).toBe(true);
  });

  it('takes the higher of two, whatever their order', () => {
    const level = fc.constantFrom(...PERMISSIONS);
    fc.assert(
      fc.property(level, level, (a, b) => {
        const top = higher(a, b);
        expect(top).toBe(higher(b, a));
        expect(atLeast(top, a) && atLeast(top, b)).toBe(true);
        expect(top === a || top === b).toBe(true);
      }),
    );
  });
});
