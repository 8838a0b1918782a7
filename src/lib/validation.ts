import Type, { type TSchema, type TStringOptions } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { Settings } from 'typebox/system';
import { Format } from 'typebox/format';
import { attribute, type FieldErrors } from '../errors.js';
import { sortKey } from './sort-key.js';

// TypeBox stops collecting errors after 8 by default; a body can have more failing fields than
// that (a user has 15), and each is reported. Still bounded: our schemas are small and flat.
Settings.Set({ maxErrors: 64 });

/**
 * A moment the service can store. TypeBox's `date-time` is RFC 3339, which also allows a leap
 * second (`23:59:60`) and an RFC 9557 suffix (`[Europe/Zurich]`); neither is a JavaScript Date,
 * and an offset can carry a moment past the year 9999 (or before the year 1), which the stored
 * form (four-digit years, compared as text) cannot hold. Those are "not a valid date" (422), as in the original service.
 */
Format.Set('date-time', (value) => {
  if (!Format.IsDateTime(value)) return false;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return false;
  // Years 1-9999: four digits, and PostgreSQL's timestamp has no year 0.
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999;
});

/**
 * The most UTF-8 bytes a first or last name and its sort key take together. Both are in the
 * people lists' indexes, and PostgreSQL refuses an index entry over 2,704 bytes: two names within
 * this bound fit with room to spare. 255 characters of Latin script always fit (510-765 bytes);
 * the bound only bites in scripts of three or four bytes a character at about 150-200 characters
 * (Hangul, whose sort key is decomposed into jamo, at about 100).
 */
export const MAX_NAME_BYTES = 1200;
/** Whether a first or last name fits the people lists' indexes (see MAX_NAME_BYTES). */
export const nameFitsIndexes = (value: string): boolean => Buffer.byteLength(value) + Buffer.byteLength(sortKey(value)) <= MAX_NAME_BYTES;
Format.Set('person-name', nameFitsIndexes);

/**
 * Checks input against a TypeBox schema and words the failures the way the original (Laravel)
 * service does: one message per field, fields in the schema's order. Used by the HTTP layer and
 * the CLI alike, so both reject the same values with the same words.
 */

interface SchemaError {
  keyword: string;
  schemaPath?: string;
  instancePath: string;
  params: Record<string, unknown>;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  array: 'an array',
  object: 'an object',
};

function messageFor(field: string, error: SchemaError): string {
  const name = attribute(field);
  const { params } = error;
  switch (error.keyword) {
    case 'boolean':
      // A property that `additionalProperties: false` refuses (the query strings of the resource endpoints).
      return error.schemaPath?.endsWith('additionalProperties') ? `The ${name} field is prohibited.` : `The ${name} field is invalid.`;
    case 'required':
      return `The ${name} field is required.`;
    case 'type': {
      if (params.type === 'boolean') return `The ${name} field must be true or false.`;
      return `The ${name} field must be ${TYPE_WORDS[String(params.type)] ?? `of type ${String(params.type)}`}.`;
    }
    case 'maxLength':
      return `The ${name} field must not be greater than ${String(params.limit)} characters.`;
    case 'minLength':
      // Laravel counts an empty string as missing.
      return params.limit === 1
        ? `The ${name} field is required.`
        : `The ${name} field must be at least ${String(params.limit)} characters.`;
    case 'maximum':
      return `The ${name} field must not be greater than ${String(params.limit)}.`;
    case 'minimum':
      return `The ${name} field must be at least ${String(params.limit)}.`;
    case 'maxItems':
      return `The ${name} field must not have more than ${String(params.limit)} items.`;
    case 'minItems':
      return `The ${name} field must have at least ${String(params.limit)} items.`;
    case 'format':
      if (params.format === 'email') return `The ${name} field must be a valid email address.`;
      if (params.format === 'date-time' || params.format === 'date') return `The ${name} field must be a valid date.`;
      if (params.format === 'person-name') return `The ${name} field is too long.`;
      return `The ${name} field format is invalid.`;
    case 'pattern':
      return `The ${name} field format is invalid.`;
    case 'enum':
    case 'const':
      return `The selected ${name} is invalid.`;
    case 'uniqueItems':
      return `The ${name} field has a duplicate value.`;
    default:
      return `The ${name} field is invalid.`;
  }
}

/**
 * U+0000 never reaches storage: PostgreSQL's text cannot hold it (SQLite's can), so every text
 * that is stored refuses it ("format is invalid"), on every storage alike.
 */
const NO_NUL_PATTERN = '^[^\\u0000]*$';
export const containsNul = (value: string): boolean => value.includes('\u0000');

/** Uniqueness and login match usernames and e-mail addresses regardless of ASCII case. */
export const lowerAscii = (value: string): string => value.replace(/[A-Z]+/g, (s) => s.toLowerCase());

/** A string that is stored as text: refuses U+0000 (see NO_NUL_PATTERN). */
export const StoredText = (options: TStringOptions = {}) => Type.String({ pattern: NO_NUL_PATTERN, ...options });

/**
 * Lower is more telling: a missing field beats a wrong type beats "not a date" beats a wrong
 * length (`2026-11-25T10:00:00Z` for a day is no date, more than it is too long).
 */
const PRIORITY: Record<string, number> = { required: 0, type: 1 };
const DATE_FORMATS = new Set(['date', 'date-time']);
const rank = (error: SchemaError) =>
  PRIORITY[error.keyword] ?? (error.keyword === 'format' && DATE_FORMATS.has(String(error.params.format)) ? 1.5 : 2);

function collectFieldErrors(schema: TSchema, errors: Iterable<SchemaError>): FieldErrors {
  const byField = new Map<string, SchemaError>();
  const consider = (field: string, error: SchemaError) => {
    const current = byField.get(field);
    if (!current || rank(error) < rank(current)) byField.set(field, error);
  };
  for (const error of errors) {
    // A union such as "string or null" reports each branch; the null branch says nothing useful.
    if (error.keyword === 'anyOf' || (error.keyword === 'type' && error.params.type === 'null')) continue;
    if (error.keyword === 'required') {
      for (const field of (error.params.requiredProperties as string[] | undefined) ?? []) consider(field, error);
      continue;
    }
    const field = error.instancePath.split('/').slice(1).join('.');
    if (field !== '') consider(field, error);
  }
  const order = Object.keys((schema as { properties?: object }).properties ?? {});
  const fields = [...byField.keys()].sort((a, b) => {
    const ia = order.indexOf(a.split('.')[0] as string);
    const ib = order.indexOf(b.split('.')[0] as string);
    return ia - ib || a.localeCompare(b);
  });
  return Object.fromEntries(fields.map((field) => [field, [messageFor(field, byField.get(field)!)]]));
}

export type Validation<T> = { ok: true; value: T } | { ok: false; fieldErrors: FieldErrors };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The properties of an object schema that take an integer (alone or beside null). */
function integerProperties(schema: TSchema): Set<string> {
  const properties = (schema as { properties?: Record<string, { type?: unknown; anyOf?: { type?: unknown }[] }> }).properties ?? {};
  const isInteger = (option: { type?: unknown }) => option.type === 'integer';
  return new Set(Object.keys(properties).filter((key) => isInteger(properties[key]!) || (properties[key]!.anyOf ?? []).some(isInteger)));
}

/** Decimal digits with an optional sign: what Laravel's `integer` rule takes from a query string. */
const INTEGER_TEXT = /^[+-]?[0-9]+$/;

type QueryTextConverter = (value: Record<string, unknown>) => Record<string, unknown>;

/**
 * TypeBox's conversion of an object schema, made once per schema: a copy of the value with each
 * given property that the schema names converted by that property's schema, the rest as given.
 * That is what `Value.Convert` does with an object, which on every call also makes a regular
 * expression of each property name of the schema: 10 us for the people list's twelve, against
 * 2.7 us here for the four a page of it gives (docs/benchmarks/design.md). A schema whose other
 * properties have a schema of their own is left to `Value.Convert` whole.
 */
export function queryTextConverter(schema: TSchema): QueryTextConverter {
  const { properties, additionalProperties } = schema as { properties?: Record<string, TSchema>; additionalProperties?: unknown };
  if (properties === undefined || (typeof additionalProperties === 'object' && additionalProperties !== null)) {
    return (value) => Value.Convert(schema, { ...value }) as Record<string, unknown>;
  }
  const known = new Map(Object.entries(properties));
  return (value) => {
    const converted: Record<string, unknown> = { ...value };
    for (const key of Object.keys(value)) {
      const property = known.get(key);
      // Convert skips an optional property given as undefined; a query string never gives one.
      if (property !== undefined && value[key] !== undefined) converted[key] = Value.Convert(property, value[key]);
    }
    return converted;
  };
}

/**
 * Query text read as the schema's types. TypeBox's conversion reads any number into an integer
 * ("1.5" as 1, "1e3" as 1000, "0x10" as 16, "" as 0): such text stays text here, so the check
 * refuses it ("The after field must be an integer.") instead of answering for another value.
 */
function convertQueryStrings(convert: QueryTextConverter, integers: Set<string>, value: Record<string, unknown>): Record<string, unknown> {
  const converted = convert(value);
  for (const key of integers) {
    const given = value[key];
    if (typeof given === 'string' && !INTEGER_TEXT.test(given)) converted[key] = given;
  }
  return converted;
}

/**
 * Compiles a validator for an object schema. A body that is not an object (an array, a string,
 * null) is read as an empty object, as Laravel reads it, so the caller hears which fields are missing.
 */
export function compileObjectValidator<T>(schema: TSchema, options: { convertStrings?: boolean } = {}): (input: unknown) => Validation<T> {
  const compiled = Compile(schema);
  const integers = integerProperties(schema);
  const convert = options.convertStrings ? queryTextConverter(schema) : null;
  return (input) => {
    let value = isPlainObject(input) ? input : {};
    // A query string carries text only: "5" is read as the integer 5, "true" as true, before the check.
    if (convert !== null) value = convertQueryStrings(convert, integers, value);
    if (compiled.Check(value)) return { ok: true, value: value as T };
    return { ok: false, fieldErrors: collectFieldErrors(schema, compiled.Errors(value) as Iterable<SchemaError>) };
  };
}
