import type { FastifyInstance, preParsingHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import secureJson from 'secure-json-parse';
import { errors } from '../errors.js';
import { compileObjectValidator, type Validation } from '../lib/validation.js';
import type { TSchema } from 'typebox';

/** Checks one part of a request (body, query string, params) with its TypeBox schema; 422 with Laravel's words. */
export function compileRequestValidator({ schema, httpPart }: { schema: unknown; httpPart?: string }) {
  const validate = compileObjectValidator(schema as TSchema, { convertStrings: httpPart === 'querystring' || httpPart === 'params' });
  return (data: unknown) => {
    const result = validate(data);
    return result.ok ? { value: result.value } : { error: errors.validation(result.fieldErrors) };
  };
}

/**
 * A route's validator compiler whose body is checked by `check` (a body of one of two forms, the
 * single and the bulk one), the other parts by their schemas; the body schema then serves the
 * OpenAPI document and the types only.
 */
export const bodyCheckedBy =
  (check: (body: unknown) => Validation<unknown>) =>
  (route: { schema: unknown; httpPart?: string }) =>
    route.httpPart === 'body'
      ? (data: unknown) => {
          const result = check(data);
          return result.ok ? { value: result.value } : { error: errors.validation(result.fieldErrors) };
        }
      : compileRequestValidator(route);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that takes no body (DELETEs take none either): its Content-Type and body are ignored. */
    takesNoBody?: boolean;
  }
}

/** DELETEs and the POSTs that say so take no body: whatever a client sends along is not read. */
const takesNoBody = (route: RouteOptions): boolean =>
  (Array.isArray(route.method) ? route.method : [route.method]).every((method) => method === 'DELETE') ||
  (route.config as { takesNoBody?: boolean } | undefined)?.takesNoBody === true;

/**
 * Makes the request look bodiless before Fastify looks for a body parser, so that a client's
 * default `Content-Type: text/plain` (or any body) is never a 415 on an operation that reads none.
 * Node discards the unread bytes when the answer is sent.
 */
const ignoreBody: preParsingHookHandler = (request, _reply, payload, done) => {
  const { headers } = request;
  if (headers['content-type'] !== undefined || headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0') {
    delete headers['content-type'];
    delete headers['transfer-encoding'];
    headers['content-length'] = '0';
  }
  done(null, payload);
};

const asList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/**
 * JSON in: bodies are parsed without prototype pollution (`__proto__` and `constructor.prototype`
 * keys are dropped), an empty body reads as `{}` (then validation names the missing fields, as
 * the original does), and request parts are checked by TypeBox with Laravel-worded messages.
 */
export default fp(
  async function jsonBody(app: FastifyInstance) {
    app.removeAllContentTypeParsers();
    const parseJson = (_request: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      const text = body.toString().trim();
      if (text === '') return done(null, {});
      try {
        done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
      } catch {
        done(errors.malformedJson());
      }
    };
    app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
    app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parseJson);

    app.setValidatorCompiler(compileRequestValidator);
    app.addHook('onRoute', (route) => {
      if (takesNoBody(route)) route.preParsing = [...asList(route.preParsing), ignoreBody];
    });
  },
  { name: 'json-body' },
);
