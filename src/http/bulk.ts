import { ApiError, attribute, errors, fieldMessages, type FieldErrors } from '../errors.js';
import { compileObjectValidator } from '../lib/validation.js';
import Type, { type TSchema } from 'typebox';

// What the bulk forms share (docs/api/conventions.md, "Bulk forms"): one request for a list of
// items, all or nothing. The body is checked as a whole (1-200 items, no repeats, each item by its
// single form's schema), then each item by its single form's rules; any refusal is a 422 entry
// keyed by the item's 0-based index, and nothing is written.

/** Items in one bulk request at most. */
export const MOST_ITEMS = 200;

/** Bulk bodies may be larger than the default body limit: 200 items with notes. */
export const BULK_BODY_LIMIT = 1024 * 1024;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The array `field` of a bulk body: present and not empty (Laravel's `required` counts an empty
 * array as missing), at most MOST_ITEMS, no item's identity twice (the later index is named), and
 * each item checked by `checkItem` under its key (`person_ids.3`, `memberships.2.end_on`).
 */
export function checkItems(
  body: Record<string, unknown>,
  field: string,
  identityOf: (item: unknown) => unknown,
  checkItem: (item: unknown, key: string) => FieldErrors,
): { items: unknown[]; problems: FieldErrors } {
  const value = body[field];
  const name = attribute(field);
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
    return { items: [], problems: { [field]: [fieldMessages.required(field)] } };
  }
  if (!Array.isArray(value)) return { items: [], problems: { [field]: [`The ${name} field must be an array.`] } };
  if (value.length > MOST_ITEMS) return { items: [], problems: { [field]: [`The ${name} field must not have more than ${MOST_ITEMS} items.`] } };
  const problems: FieldErrors = {};
  const seen = new Set<unknown>();
  value.forEach((item, index) => {
    const key = `${field}.${index}`;
    Object.assign(problems, checkItem(item, key));
    const identity = identityOf(item);
    if (identity === undefined || identity === null) return;
    // A repeat is named on the later item, also when that item has other problems.
    if (seen.has(identity)) problems[key] = [`The ${attribute(key)} field has a duplicate value.`];
    seen.add(identity);
  });
  return { items: value, problems };
}

/** The `id` of an item that is an object: what makes two items of a list the same. */
export const idOfItem = (item: unknown): unknown => (isPlainObject(item) ? item.id : undefined);

/** An item that is an object checked by `schema`; its fields' messages keyed under the item's key. */
export function objectItemCheck(schema: TSchema): (item: unknown, key: string) => FieldErrors {
  const validate = compileObjectValidator(schema);
  return (item, key) => {
    if (!isPlainObject(item)) return { [key]: [`The ${attribute(key)} field must be an object.`] };
    const result = validate(item);
    if (result.ok) return {};
    // Named as Laravel names a field of an array's item: "The participations.0.role field ...".
    return Object.fromEntries(
      Object.entries(result.fieldErrors).map(([field, messages]) => [
        `${key}.${field}`,
        messages.map((m) => m.replace(` ${attribute(field)} `, ` ${attribute(`${key}.${field}`)} `)),
      ]),
    );
  };
}

/** An item that is a value (an id) checked by `schema`; its message names the item's key. */
export function valueItemCheck(schema: TSchema): (item: unknown, key: string) => FieldErrors {
  const check = objectItemCheck(Type.Object({ value: schema }));
  return (item, key) => {
    const found = check({ value: item }, key)[`${key}.value`];
    return found === undefined ? {} : { [key]: found.map((m) => m.replace(` ${attribute(`${key}.value`)} `, ` ${attribute(key)} `)) };
  };
}

/**
 * One item's refusal by its single form's rules, keyed by the item: a field's error under
 * `<key>.<field>`; a refusal of the whole item (not found, not allowed, full, a rule of the
 * resource) under `wholeKey`. Anything but an ApiError is not a refusal and is thrown on.
 */
export function itemRefusal(error: unknown, key: string, wholeKey: string, fields: readonly string[]): FieldErrors {
  if (!(error instanceof ApiError) || error.statusCode >= 500 || error.statusCode === 412) throw error;
  const own = error.details.fieldErrors;
  if (own === undefined) return { [wholeKey]: [error.message] };
  return Object.fromEntries(Object.entries(own).map(([field, messages]) => [fields.includes(field) ? `${key}.${field}` : wholeKey, messages]));
}

/** Refusals keyed by item in the order of the items (`person_ids.2` before `person_ids.10`), a key of the whole last. */
export function inIndexOrder(problems: FieldErrors): FieldErrors {
  const indexOf = (key: string) => Number(/\.(\d+)(?:\.|$)/.exec(key)?.[1] ?? Number.POSITIVE_INFINITY);
  return Object.fromEntries(Object.entries(problems).sort(([a], [b]) => indexOf(a) - indexOf(b)));
}

/** `person_ids.<i>`: `Person not found.` for each person the caller does not see, and nothing more of them. */
export function unseenPeople(personIds: readonly number[], seen: ReadonlySet<number>): FieldErrors {
  const message = errors.notFound('Person').message;
  return Object.fromEntries(personIds.flatMap((id, i) => (seen.has(id) ? [] : [[`person_ids.${i}`, [message]]])));
}

export const hasProblems = (problems: FieldErrors): boolean => Object.keys(problems).length > 0;
