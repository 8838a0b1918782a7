import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as catalogue from '../../src/errors.js';
import { ApiError, attribute, errors, fieldMessages, ruleMessages } from '../../src/errors.js';
import { compileObjectValidator } from '../../src/lib/validation.js';
import { accountMessages } from '../../src/modules/accounts/messages.js';
import { messageMessages } from '../../src/modules/messages/schemas.js';
import { FIELD_NAMES, translateApiMessage, translateApiMessages } from '../../web/src/i18n/api-messages.js';
import { formatNumber, wordsFor } from '../../web/src/i18n/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const TRANSLATED = ['de', 'fr'] as const;

/** The resources a 404 may name, as src/errors.ts declares them (a type, so read from its text). */
function resourceNames(): string[] {
  const source = readFileSync(new URL('../../src/errors.ts', import.meta.url), 'utf8');
  const union = /export type ResourceName =([^;]+);/.exec(source)?.[1] ?? '';
  return [...union.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
}

/**
 * Sample arguments for the message functions of src/errors.ts, by catalogue and entry. A function
 * not named here gets its catalogue's default: a new one whose arguments differ fails loudly.
 */
const ARGUMENTS: Record<string, Record<string, unknown[][]>> = {
  errors: {
    routeNotFound: [['/api/nothing']],
    methodNotAllowed: [['PUT', '/api/user', ['GET', 'PATCH']]],
    notFound: resourceNames().map((resource) => [resource]),
    tooManyAttempts: [[30]],
    serviceUnavailable: [[], [30]],
    // These carry the messages of the other catalogues, checked there (and the count of further errors below).
    validation: [],
    invalidField: [],
    ruleBroken: [],
  },
  importMessages: {
    columnsMeanOneField: [['Name', 'Nachname', 'lastname']],
    notDate: [['birthday']],
    notYesNo: [['is_vegetarian'], ['can_swimm']],
    spreadsheetError: [['city', '#N/A']],
  },
  fieldMessages: {
    reservedTokenName: [['web session']],
    abilitiesBeyondToken: [[['people:write', 'events:read']]],
    expiryBeyondToken: [['2027-01-01T00:00:00.000000Z']],
  },
};
const DEFAULT_ARGUMENTS: Record<string, unknown[]> = { importMessages: [12], ruleMessages: ['pending', 'accepted'] };

/** Every message of every message object that src/errors.ts exports. */
function catalogueMessages(): string[] {
  const messages: string[] = [];
  for (const [name, exported] of Object.entries(catalogue)) {
    if (typeof exported !== 'object' || exported === null) continue;
    for (const [entry, value] of Object.entries(exported)) {
      if (typeof value === 'string') messages.push(value);
      if (typeof value !== 'function') continue;
      for (const args of ARGUMENTS[name]?.[entry] ?? [DEFAULT_ARGUMENTS[name] ?? ['firstname', 'starts_at']]) {
        const made: unknown = value(...args);
        messages.push(made instanceof ApiError ? made.message : String(made));
      }
    }
  }
  return messages;
}

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

/** A field no route takes: the schemas that refuse unknown fields say so. */
const UNKNOWN_FIELD = 'shoe_size';

const WRONG_VALUES: unknown[] = [{}, [], 'x', '', 1.5, -1, true, null, 'not a date', '\u0000'];

/** An item that fits `schema`, the i-th of distinct ones where it can be. */
function fittingItem(schema: Schema, i: number): unknown {
  const branch = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema;
  if (branch.enum) return branch.enum[i % branch.enum.length];
  if (branch.type === 'integer' || branch.type === 'number') return i + 1;
  if (branch.type === 'string') return `item ${i}`;
  return {};
}

/** Values that break `schema` in every way its keywords allow: type, length, bounds, size, format, nested fields. */
function badValues(schema: Schema): unknown[] {
  const values = [...WRONG_VALUES];
  for (const branch of [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    if (branch.maxLength !== undefined && branch.maxLength < 100_000) values.push('x'.repeat(branch.maxLength + 1));
    if (branch.minLength !== undefined && branch.minLength > 1) values.push('x'.repeat(branch.minLength - 1));
    // Within the length, and long in UTF-8: a format that bounds bytes (a name's) refuses it.
    if (branch.format !== undefined) values.push('한'.repeat(Math.min(branch.maxLength ?? 255, 255)));
    if (branch.maximum !== undefined) values.push(branch.maximum + 1);
    if (branch.minimum !== undefined) values.push(branch.minimum - 1);
    if (branch.items) {
      const items = branch.items;
      const list = (length: number) => Array.from({ length }, (_, i) => fittingItem(items, i));
      if (branch.maxItems !== undefined) values.push(list(branch.maxItems + 1));
      if (branch.minItems !== undefined && branch.minItems > 0) values.push(list(branch.minItems - 1));
      values.push([fittingItem(items, 0), fittingItem(items, 0)]);
      for (const bad of badValues(items)) values.push([bad]);
    }
    for (const [field, property] of Object.entries(branch.properties ?? {})) for (const bad of badValues(property)) values.push({ [field]: bad });
  }
  return values;
}

/** The field messages the API's own validation words for bad bodies and query strings of every route. */
function validationMessages(document: { paths: Record<string, Record<string, unknown>> }): Map<string, string> {
  const messages = new Map<string, string>();
  const check = (schema: Schema) => {
    const validate = compileObjectValidator(schema as never);
    const bodies: unknown[] = [{}, { [UNKNOWN_FIELD]: 1 }];
    for (const [field, property] of Object.entries(schema.properties ?? {})) for (const bad of badValues(property)) bodies.push({ [field]: bad });
    for (const body of bodies) {
      const result = validate(body);
      if (result.ok) continue;
      for (const [field, fieldMessages] of Object.entries(result.fieldErrors)) for (const message of fieldMessages) messages.set(message, field);
    }
  };
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations) as { parameters?: { in: string; name: string; required?: boolean; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } }[]) {
      const body = operation.requestBody?.content['application/json']?.schema;
      if (body?.properties) check(body);
      const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      if (query.length > 0) {
        check({
          type: 'object',
          properties: Object.fromEntries(query.map((parameter) => [parameter.name, parameter.schema])),
          required: query.filter((parameter) => parameter.required).map((parameter) => parameter.name),
          additionalProperties: false,
        } as Schema);
      }
    }
  }
  return messages;
}

describe('the web app: the API\'s messages in German and French', () => {
  let test: TestApp;
  /** Message -> the field it was about. */
  let validation: Map<string, string>;
  beforeAll(async () => {
    test = await buildTestApp();
    validation = validationMessages(test.app.swagger() as never);
  });
  afterAll(() => test?.close());

  const expectTranslated = (messages: Iterable<string>) => {
    const missing: string[] = [];
    for (const message of messages) {
      for (const language of TRANSLATED) {
        const translated = translateApiMessage(message, language);
        if (translated === message || /[{}]/.test(translated)) missing.push(`${language}: ${message}`);
      }
    }
    expect(missing).toEqual([]);
  };

  it('translates every message of the error catalogue', () => {
    const messages = catalogueMessages();
    expect(messages.length).toBeGreaterThan(50);
    expectTranslated(messages);
  });

  it('translates every message the validation of the routes\' bodies and query strings gives', () => {
    // Every kind of schema message at least: required, type, length, bounds, items, format, choice, prohibited.
    expect(validation.size).toBeGreaterThan(100);
    expectTranslated(validation.keys());
  });

  it('names every field of those messages in German and French', () => {
    const unnamed = new Set<string>();
    for (const field of validation.values()) {
      if (field === UNKNOWN_FIELD) continue;
      for (const part of attribute(field).split('.')) if (!/^\d+$/.test(part) && !Object.hasOwn(FIELD_NAMES, part)) unnamed.add(part);
    }
    expect([...unnamed]).toEqual([]);
    for (const [message, field] of validation) {
      if (field === UNKNOWN_FIELD) continue;
      const parts = attribute(field).split('.');
      // A message's `to.group id` names its recipients, not the end of a period (`to` alone).
      const name = parts[0] === 'to' && parts.length > 1 ? 'recipients' : parts[0]!;
      for (const [index, language] of TRANSLATED.entries()) expect(translateApiMessage(message, language)).toContain(FIELD_NAMES[name]![index]);
    }
  });

  it('keeps a field name it does not know, writes numbers in the language\'s format and names states in its words', () => {
    for (const language of TRANSLATED) {
      expect(translateApiMessage(fieldMessages.required(UNKNOWN_FIELD), language)).toContain(attribute(UNKNOWN_FIELD));
      const bound = [...validation.keys()].map((message) => /(\d{4,})/.exec(message)).find((match) => match !== null)!;
      expect(translateApiMessage(bound.input, language)).toContain(formatNumber(Number(bound[1]), language));
      const refused = translateApiMessage(ruleMessages.stateCannotChange('pending', 'accepted'), language);
      expect(refused).toContain(wordsFor(language).pending);
      expect(refused).toContain(wordsFor(language).accepted);
    }
  });

  it('translates a 422\'s message with the count of further errors', () => {
    const one = errors.validation({ firstname: [fieldMessages.required('firstname')], email: [fieldMessages.taken('email')] }).message;
    const two = errors.validation({ a: [ruleMessages.eventFull], b: [ruleMessages.registrationClosed], c: [ruleMessages.eventFull] }).message;
    for (const language of TRANSLATED) {
      for (const message of [one, two]) {
        const translated = translateApiMessage(message, language);
        expect(translated).not.toBe(message);
        expect(translated.startsWith(translateApiMessage(message.replace(/ \(and .*\)$/, ''), language))).toBe(true);
        expect(translated).not.toContain('more error');
      }
      expect(translateApiMessage(one, language)).toMatch(/\(\D*1\D*\)$/);
      expect(translateApiMessage(two, language)).toMatch(/\(\D*2\D*\)$/);
    }
  });

  it('translates the messages of mail: links from mails, invitations, messages', () => {
    const mail = [
      'If the address is known, a link is on its way.',
      'The reset link is invalid or has expired.',
      'The invitation is invalid or has expired.',
      'The person is deactivated.',
      'The person already has a login.',
      'The person has no e-mail address.',
      'The e-mail address was refused before.',
      'The subject field must not contain line breaks.',
      'Message not found.',
      'The password field confirmation does not match.',
      'The username has already been taken.',
      'The password field must be at least 8 characters.',
      'The token field is required.',
      'Too Many Attempts.',
      'The mail could not be sent.',
      ...Object.values(accountMessages),
      ...Object.values(messageMessages),
    ];
    expectTranslated(mail);
    expect(translateApiMessage('Message not found.', 'de')).toBe('Nachricht nicht gefunden.');
    expect(translateApiMessage('The subject field must not contain line breaks.', 'fr')).toContain(FIELD_NAMES.subject![1]);
    for (const [index, language] of TRANSLATED.entries()) {
      // A message's recipients (`to.group_id`) are not the end of a period (the agenda's `to`).
      expect(translateApiMessage('The to.group id field is required.', language)).toContain(`${FIELD_NAMES.recipients![index]}.${FIELD_NAMES['group id']![index]}`);
      expect(translateApiMessage('The to field must be a valid date.', language)).toContain(FIELD_NAMES.to![index]);
      for (const field of ['body', 'role types', 'states', 'guardians', 'event id']) expect(translateApiMessage(`The to.${field} field is invalid.`, language)).toContain(FIELD_NAMES[field]![index]);
    }
  });

  it('shows an unknown message as it came, and English as it came', () => {
    for (const language of TRANSLATED) {
      expect(translateApiMessage('The moon is made of cheese.', language)).toBe('The moon is made of cheese.');
      expect(translateApiMessage('', language)).toBe('');
    }
    for (const message of [...catalogueMessages(), ...validation.keys()]) expect(translateApiMessage(message, 'en')).toBe(message);
    expect(translateApiMessages([ruleMessages.eventFull, 'Something new.'], 'de')).toBe(`${translateApiMessage(ruleMessages.eventFull, 'de')} Something new.`);
  });
});
