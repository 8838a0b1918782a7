import { createHmac, timingSafeEqual } from 'node:crypto';
import Type from 'typebox';
import { errors, fieldMessages } from '../errors.js';

/**
 * Keyset paging for every list: `limit` 1-200 (default 50) and `cursor`, the
 * `next_cursor` of the page before. A cursor names its list and the sort key of the last row shown,
 * and is signed: one that the service did not issue, or issued for another list, is 422 on
 * `cursor`, never a query.
 */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/**
 * The longest cursor taken back. A cursor carries the sort key of the last row shown: for people
 * four names of up to 255 characters (up to 5.5 KB once encoded), for groups the names of every
 * level above (0.7 KB a level of the longest ASCII names, about 17 levels). The request line stays
 * within Node's 16 KB for headers.
 */
export const MAX_CURSOR_LENGTH = 12_288;

/** The paging part of a list's query string schema. */
export const PagingQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH })),
};

/** A sort key: the values of the list's order columns, `id` last. */
export type SortKey = readonly (string | number | null)[];

export interface Page<Row> {
  rows: Row[];
  nextCursor: string | null;
}

export interface CursorCodec {
  /** The opaque cursor of the page after the row with this key. */
  encode(list: string, key: SortKey): string;
  /** The key a cursor carries, or a 422 on `cursor` when it is forged, edited or for another list. */
  decode(list: string, cursor: string): SortKey;
  /**
   * A page from `limit + 1` rows read in the list's order: the extra row only tells that there is
   * another page. (A last page that is exactly full has no extra row and no cursor.)
   */
  page<Row>(list: string, rows: Row[], limit: number, keyOf: (row: Row) => SortKey): Page<Row>;
  /**
   * The same codec with its cursors bound to `scope` as well (the tenant and the list's filters): a
   * cursor carried over to another tenant or to the same list with other filters is "for another list".
   */
  scoped(scope: string): CursorCodec;
}

const SIGNATURE_LENGTH = 22; // 128 bits of HMAC-SHA256, base64url

const invalidCursor = () => errors.invalidField('cursor', fieldMessages.invalid('cursor'));

/** Cursors signed with `secret`, which every instance of the service must share. */
export function createCursorCodec(secret: Buffer, scope = ''): CursorCodec {
  // The scope is signed, not carried: the cursor stays short and shows nothing of the filters.
  const sign = (payload: string) =>
    createHmac('sha256', secret).update(scope).update('\n').update(payload).digest('base64url').slice(0, SIGNATURE_LENGTH);
  const codec: CursorCodec = {
    encode(list, key) {
      const payload = Buffer.from(JSON.stringify([list, key])).toString('base64url');
      return `${payload}.${sign(payload)}`;
    },
    decode(list, cursor) {
      const [payload, signature, ...rest] = cursor.split('.');
      if (!payload || !signature || rest.length > 0) throw invalidCursor();
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      // Constant time: a forger learns nothing from how long a wrong signature takes.
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalidCursor();
      }
      if (!Array.isArray(parsed) || parsed[0] !== list || !Array.isArray(parsed[1])) throw invalidCursor();
      return parsed[1] as SortKey;
    },
    page(list, rows, limit, keyOf) {
      if (rows.length <= limit) return { rows, nextCursor: null };
      const shown = rows.slice(0, limit);
      return { rows: shown, nextCursor: codec.encode(list, keyOf(shown[shown.length - 1]!)) };
    },
    scoped(more) {
      return createCursorCodec(secret, `${scope}\n${more}`);
    },
  };
  return codec;
}

/**
 * What a list's cursors are bound to: the tenant and every filter of the query but the paging itself,
 * in a fixed order, so the next page is only ever asked for with the query that produced the cursor.
 */
export function cursorScope(tenant: string, query: Record<string, unknown>): string {
  const filters = Object.keys(query)
    // The answer's form is no filter: a file goes on from a cursor of the JSON pages.
    .filter((name) => name !== 'cursor' && name !== 'limit' && name !== 'format' && query[name] !== undefined)
    .sort()
    .map((name) => [name, query[name]]);
  return JSON.stringify([tenant, filters]);
}

/** The page size a list asked for (validated by its query schema). */
export const limitOf = (query: { limit?: number }): number => query.limit ?? DEFAULT_LIMIT;
