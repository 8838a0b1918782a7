import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { XLSX_MEDIA_TYPE } from '../../src/lib/xlsx.js';

/**
 * Checks an answer against the OpenAPI document: a documented status for that operation, and a
 * body that matches the documented schema, with no undocumented field. Answers to paths the
 * document does not describe (unknown routes, /health) are outside the contract.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Document = Record<string, any>;

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

/** Objects with listed properties allow nothing else: an undocumented field is a failure. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, closed(v)])) : closed(value);
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

const validators = new WeakMap<Document, Map<string, ValidateFunction>>();
const matchers = new WeakMap<Document, { regex: RegExp; path: string }[]>();

function operationPath(document: Document, path: string): string | undefined {
  let list = matchers.get(document);
  if (!list) {
    // Literal text escaped (`/events/{id}.ics`), and the template with the most literal text first,
    // as the router prefers it: `/events/7.ics` is that operation, not `/events/{id}`.
    const literal = (template: string) => template.replace(/\{[^}]+\}/g, '').length;
    list = Object.keys(document.paths)
      .map((template) => ({
        path: template,
        regex: new RegExp(`^${template.split(/(\{[^}]+\})/).map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('')}/?$`),
      }))
      .sort((a, b) => literal(b.path) - literal(a.path));
    matchers.set(document, list);
  }
  return list.find((entry) => entry.regex.test(path))?.path;
}

export interface ContractAnswer {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}

export function checkContract(document: Document, method: string, url: string, answer: ContractAnswer): void {
  const path = url.split('?')[0] ?? '';
  if (!path.startsWith('/api/') || method === 'HEAD' || method === 'OPTIONS') return;
  const template = operationPath(document, path.slice('/api'.length));
  if (!template) return;
  const operation = document.paths[template][method.toLowerCase()];
  if (!operation) return; // a 405: the path exists, this method does not
  const where = `${method} ${path} -> ${answer.statusCode}`;
  const response = operation.responses[String(answer.statusCode)];
  if (!response) throw new Error(`contract: undocumented status for ${where}: ${answer.body.slice(0, 200)}`);
  if (answer.statusCode === 204) {
    if (answer.body !== '') throw new Error(`contract: ${where} must have no body`);
    return;
  }
  const contentType = String(answer.headers['content-type'] ?? '').split(';')[0]?.trim();
  if (contentType === 'text/csv') {
    if (!response.content?.['text/csv']) throw new Error(`contract: ${where} answered CSV, which the document does not list`);
    return;
  }
  if (contentType === 'text/calendar' || contentType === 'text/vcard') {
    if (!response.content?.[contentType]) throw new Error(`contract: ${where} answered ${contentType}, which the document does not list`);
    return;
  }
  if (contentType === XLSX_MEDIA_TYPE) {
    if (!response.content?.[XLSX_MEDIA_TYPE]) throw new Error(`contract: ${where} answered XLSX, which the document does not list`);
    return;
  }
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return;
  let cache = validators.get(document);
  if (!cache) validators.set(document, (cache = new Map()));
  const key = `${template} ${method} ${answer.statusCode}`;
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(closed(schema) as object);
    cache.set(key, validate);
  }
  const body: unknown = JSON.parse(answer.body);
  if (!validate(body)) {
    throw new Error(`contract: body of ${where} does not match the document: ${ajv.errorsText(validate.errors)}; body ${answer.body.slice(0, 300)}`);
  }
}
