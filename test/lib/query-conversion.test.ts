import fc from 'fast-check';
import Type, { type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { queryTextConverter } from '../../src/lib/validation.js';
import { ChangesQuery } from '../../src/modules/changes/schemas.js';
import { EventListQuery } from '../../src/modules/events/schemas.js';
import { GroupListQuery } from '../../src/modules/groups/schemas.js';
import { GroupMembershipsQuery, PersonMembershipsQuery } from '../../src/modules/memberships/schemas.js';
import { EventParticipationsQuery } from '../../src/modules/participations/schemas.js';
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
  // A schema whose other properties have a schema of their own goes to Value.Convert whole.
  Open: Type.Object({ limit: Type.Optional(Type.Integer()) }, { additionalProperties: Type.Boolean() }),
};

/** Query text as Fastify's parser gives it: strings, and arrays of them for a repeated name. */
const text = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('', 'true', 'false', '1', '0', '1.5', '1e3', '0x10', ' 7', 'null', '2026-11-28', '2026-11-28T10:00:00Z', 'name', '-updated_at'),
  fc.string({ maxLength: 12 }),
);
const queryOf = (schema: TSchema) => {
  const names = [...Object.keys((schema as { properties: object }).properties), 'other', 'page'];
  return fc.dictionary(fc.constantFrom(...names), fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 3 })), { maxKeys: names.length });
};

/** The query strings of every list: converted property by property as TypeBox converts the whole object. */
describe('queryTextConverter', () => {
  for (const [name, schema] of Object.entries(schemas)) {
    it(`converts a ${name} as Value.Convert does`, () => {
      const convert = queryTextConverter(schema);
      fc.assert(
        fc.property(queryOf(schema), (query) => {
          expect(convert(structuredClone(query))).toEqual(Value.Convert(schema, structuredClone(query)));
        }),
        { numRuns: 300 },
      );
    });
  }

  it('reads the people list page a client asks for', () => {
    expect(queryTextConverter(PeopleQuery)({ group_id: '2', below: 'true', limit: '50', cursor: 'abc.def' })).toEqual({
      group_id: 2,
      below: true,
      limit: 50,
      cursor: 'abc.def',
    });
  });
});
