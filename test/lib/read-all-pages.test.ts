import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAllPages } from '../../src/lib/read-all-pages.js';

describe('readAllPages', () => {
  it('reads a keyset-paged list whole, in order, each row once, with as many pages as it needs', async () => {
    await fc.assert(fc.asyncProperty(fc.uniqueArray(fc.nat({ max: 10_000 }), { maxLength: 60 }), fc.integer({ min: 1, max: 15 }), async (keys, size) => {
      const sorted = [...keys].sort((a, b) => a - b);
      let reads = 0;
      const readPage = async (after: number | null, pageSize: number) => {
        reads += 1;
        return sorted.filter((key) => after === null || key > after).slice(0, pageSize + 1);
      };
      expect(await readAllPages(readPage, (key) => key, size)).toEqual(sorted);
      expect(reads).toBe(Math.max(1, Math.ceil(sorted.length / size)));
    }));
  });
});
