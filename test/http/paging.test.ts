import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { requireIfMatch, etagOf } from '../../src/http/etag.js';
import { createCursorCodec, cursorScope } from '../../src/http/paging.js';

const codec = createCursorCodec(randomBytes(32));

const refusedAsCursor = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).statusCode).toBe(422);
    expect((err as ApiError).details.fieldErrors).toEqual({ cursor: ['The cursor field is invalid.'] });
    return;
  }
  throw new Error('the cursor was accepted');
};

describe('keyset cursors', () => {
  it('carry the sort key of the last row shown, for their own list only', () => {
    const cursor = codec.encode('people:name', ['müller', 'anna', 17]);
    expect(codec.decode('people:name', cursor)).toEqual(['müller', 'anna', 17]);
    refusedAsCursor(() => codec.decode('groups', cursor));
  });

  it('refuse any cursor the service did not sign, edited or forged, with a 422 on cursor', () => {
    const cursor = codec.encode('groups', ['scouts', 3]);
    const [payload, signature] = cursor.split('.') as [string, string];
    const edited = Buffer.from(JSON.stringify(['groups', ['scouts', 1]])).toString('base64url');
    refusedAsCursor(() => codec.decode('groups', `${edited}.${signature}`));
    refusedAsCursor(() => createCursorCodec(randomBytes(32)).decode('groups', cursor));
    refusedAsCursor(() => codec.decode('groups', payload));
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (forged) => {
        fc.pre(forged !== cursor);
        refusedAsCursor(() => codec.decode('groups', forged));
      }),
    );
  });

  it('bind to their scope (tenant and filters): the same list with other filters or in another tenant refuses them', () => {
    const scope = cursorScope('demo', { q: 'ann', limit: 10, below: true, cursor: 'x' });
    // Paging parameters are not part of the scope, and neither is the order the filters came in.
    expect(scope).toBe(cursorScope('demo', { below: true, q: 'ann' }));
    const cursor = codec.scoped(scope).encode('people:name', ['ann', 1]);
    expect(codec.scoped(cursorScope('demo', { below: true, q: 'ann', limit: 5 })).decode('people:name', cursor)).toEqual(['ann', 1]);
    refusedAsCursor(() => codec.scoped(cursorScope('demo', { q: 'bob', below: true })).decode('people:name', cursor));
    refusedAsCursor(() => codec.scoped(cursorScope('other', { q: 'ann', below: true })).decode('people:name', cursor));
    refusedAsCursor(() => codec.decode('people:name', cursor));
  });

  it('pages: a cursor only when more rows follow', () => {
    const rows = [1, 2, 3, 4].map((id) => ({ id }));
    const full = codec.page('groups', rows, 3, (row) => [row.id]);
    expect(full.rows).toEqual(rows.slice(0, 3));
    expect(codec.decode('groups', full.nextCursor!)).toEqual([3]);
    expect(codec.page('groups', rows.slice(0, 3), 3, (row) => [row.id])).toEqual({ rows: rows.slice(0, 3), nextCursor: null });
  });
});

describe('If-Match', () => {
  it('lets a write through without If-Match, with the current tag, a weak one or *; else 412', () => {
    expect(etagOf(7)).toBe('"7"');
    expect(() => requireIfMatch(undefined, 7)).not.toThrow();
    expect(() => requireIfMatch('"7"', 7)).not.toThrow();
    expect(() => requireIfMatch('W/"7"', 7)).not.toThrow();
    expect(() => requireIfMatch('"6", "7"', 7)).not.toThrow();
    expect(() => requireIfMatch('*', 7)).not.toThrow();
    try {
      requireIfMatch('"6"', 7);
      throw new Error('accepted');
    } catch (err) {
      expect((err as ApiError).statusCode).toBe(412);
      expect(err).toMatchObject({ message: 'The resource was changed by someone else.' });
    }
  });
});
