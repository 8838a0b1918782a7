import fc from 'fast-check';
import fastJson from 'fast-json-stringify';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { serializerCompiler, withNullableTypes } from '../../src/http/serializer.js';
import { Envelope } from '../../src/http/schemas.js';
import { PersonSchema } from '../../src/modules/people/schemas.js';

const compile = (schema: unknown) => serializerCompiler({ schema, method: 'GET', url: '/', httpStatus: '200' });
const nullable = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });

/** A person as toApiPerson gives it, keys in the schema's order (which is the order on the wire). */
const person = fc.record({
  id: fc.integer({ min: 1, max: 2 ** 31 }),
  username: nullable(fc.string()),
  email: nullable(fc.string()),
  firstname: fc.string(),
  lastname: fc.string(),
  gender_id: nullable(fc.integer({ min: 0, max: 2 ** 31 })),
  type_id: nullable(fc.integer({ min: 0, max: 2 ** 31 })),
  phonenumber: nullable(fc.string()),
  phonenumber_mobile: nullable(fc.string()),
  street: nullable(fc.string({ unit: 'grapheme' })),
  housenumber: nullable(fc.string()),
  zip: nullable(fc.string()),
  city: nullable(fc.string({ unit: 'grapheme' })),
  is_vegetarian: fc.boolean(),
  can_swimm: fc.boolean(),
  created_at: fc.constant('2026-11-21T09:30:05.123000Z'),
  updated_at: fc.constant('2026-11-21T09:30:05.123000Z'),
  birthday: nullable(fc.constant('2010-02-03')),
  has_login: fc.boolean(),
});

describe('the answer serializer', () => {
  it('writes a nullable plain value as a type list, keeping what stands beside it', () => {
    const schema = Type.Object({
      a: Type.Union([Type.String({ format: 'date', maxLength: 10 }), Type.Null()], { description: 'a day' }),
      b: Type.Array(Type.Union([Type.Null(), Type.Integer({ minimum: 1 })])),
    });
    expect(withNullableTypes(schema)).toEqual({
      type: 'object',
      required: ['a', 'b'],
      properties: {
        a: { type: ['string', 'null'], format: 'date', maxLength: 10, description: 'a day' },
        b: { type: 'array', items: { type: ['integer', 'null'], minimum: 1 } },
      },
    });
  });

  it('leaves every other union as it is', () => {
    const unions = [
      Type.Union([Type.Literal('failing'), Type.Null()]),
      Type.Union([Type.Object({ x: Type.String() }), Type.Null()]),
      Type.Union([Type.String(), Type.Integer()]),
      Type.Union([Type.String(), Type.Integer(), Type.Null()]),
    ];
    for (const union of unions) expect(withNullableTypes(union)).toEqual(JSON.parse(JSON.stringify(union)));
  });

  it('writes every person of a page exactly as JSON.stringify and as the validator-driven serializer do', () => {
    const schema = Envelope(Type.Object({ people: Type.Array(PersonSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) }));
    const ours = compile(schema);
    const plain = fastJson(schema as Parameters<typeof fastJson>[0]);
    fc.assert(
      fc.property(fc.array(person, { maxLength: 5 }), nullable(fc.string()), (people, cursor) => {
        const answer = { success: true, message: '', data: { people, next_cursor: cursor } };
        const written = ours(answer);
        expect(written).toBe(JSON.stringify(answer));
        expect(written).toBe(plain(answer));
      }),
      { numRuns: 300 },
    );
  });
});
