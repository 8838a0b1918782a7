import fc from 'fast-check';
import { parse } from 'fast-querystring';
import Type, { type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { IdParams } from '../../src/http/before-body.js';
import { queryTextConverter } from '../../src/lib/validation.js';
import { ChangesQuery } from '../../src/modules/changes/schemas.js';
import { EventListQuery } from '../../src/modules/events/schemas.js';
import { GroupListQuery } from '../../src/modules/groups/schemas.js';
import { GroupMembershipsQuery, PersonMembershipsQuery } from '../../src/modules/memberships/schemas.js';
import { EventParticipationsQuery, PersonParticipationsQuery } from '../../src/modules/participations/schemas.js';
import { ImportQuery } from '../../src/modules/people-import/schemas.js';
import { PeopleQuery } from '../../src/modules/people/schemas.js';

const schemas: Record<string, TSchema> = {
  ChangesQuery,
  EventListQuery,
  GroupListQuery,
  GroupMembershipsQuery,
  PersonMembershipsQuery,
  EventParticipationsQuery,
  ImportQuery,
  PeopleQuery,
  // The paging alone, as the history and webhook lists take it.
  PersonParticipationsQuery,
  // A route that takes no query string, and a route's path parameters (converted the same way).
  None: Type.Object({}, { additionalProperties: false }),
  IdParams,
};

/** Query text as Fastify's parser gives it: strings, and arrays of them for a repeated name. */
const text = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('', 'true', 'false', '1', '0', '1.5', '1e3', '0x10', ' 7', 'null', '2026-11-28', '2026-11-28T10:00:00Z', 'name', '-updated_at'),
  fc.string({ maxLength: 12 }),
);
/**
 * A query string of the schema's names and others (among them names an object already has), as
 * Fastify's router parses it: fast-querystring, an object without a prototype.
 */
const queryOf = (schema: TSchema) => {
  const names = [...Object.keys((schema as { properties: object }).properties), 'other', 'page', '__proto__', 'constructor', 'toString'];
  return fc
    .array(fc.tuple(fc.constantFrom(...names), text), { maxLength: 8 })
    .map((pairs) => new URLSearchParams(pairs).toString());
};

/** The query strings of every list: converted property by property as TypeBox converts the whole object. */
describe('queryTextConverter', () => {
  for (const [name, schema] of Object.entries(schemas)) {
    it(`converts a ${name} as Value.Convert does`, () => {
      const convert = queryTextConverter(schema);
      fc.assert(
        fc.property(queryOf(schema), (query) => {
          const converted = convert(parse(query));
          const expected = Value.Convert(schema, { ...parse(query) }) as object;
          // toStrictEqual would compare a `constructor` property as the object's class.
          expect(converted).toEqual(expected);
          expect(Object.keys(converted)).toEqual(Object.keys(expected));
          expect(Object.getPrototypeOf(converted)).toBe(Object.getPrototypeOf(expected));
        }),
        { numRuns: 300 },
      );
    });
  }

  it('keeps a name an object already has as a property of its own, not as its prototype', () => {
    const converted = queryTextConverter(PeopleQuery)(parse('__proto__=1&limit=5'));
    expect(Object.keys(converted).sort()).toEqual(['__proto__', 'limit']);
    expect(converted.limit).toBe(5);
    expect(Object.getPrototypeOf(converted)).toBe(Object.prototype);
  });

  it('reads the people list page a client asks for', () => {
    expect(queryTextConverter(PeopleQuery)({ group_id: '2', below: 'true', limit: '50', cursor: 'abc.def' })).toEqual({
      group_id: 2,
      below: true,
      limit: 50,
      cursor: 'abc.def',
    });
  });
});
