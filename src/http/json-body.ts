import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import secureJson from 'secure-json-parse';
import { errors } from '../errors.js';
import { compileObjectValidator } from '../lib/validation.js';
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
  },
  { name: 'json-body' },
);
