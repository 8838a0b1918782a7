import Type from 'typebox';
import type { FastifyRequest } from 'fastify';

/**
 * A check that runs before the body is read (a route's preParsing hook, after the token and its
 * ability were checked): "may this caller touch this resource" answers 403/404 before any 400 or
 * 422 about the body. The handler reads what the check found with `found(request)`.
 */
export function beforeBody<T>(check: (request: FastifyRequest) => Promise<T>) {
  const results = new WeakMap<FastifyRequest, T>();
  return {
    preParsing: async (request: FastifyRequest) => {
      results.set(request, await check(request));
    },
    found(request: FastifyRequest): T {
      if (!results.has(request)) throw new Error('beforeBody: the check did not run for this route');
      return results.get(request) as T;
    },
  };
}

const ID = /^[1-9]\d{0,15}$/;

/** A path id, or null when it cannot name any row (the route then answers 404). */
export const parseId = (raw: string | undefined): number | null => (raw !== undefined && ID.test(raw) ? Number(raw) : null);

/** A success envelope around `data`. */
export const ok = <T>(data: T) => ({ success: true as const, message: 'success', data });

/** The same envelope around `data` already written as JSON: the bytes `ok` gives through its schema. */
export const okJsonText = (dataJson: string): string => `{"success":true,"message":"success","data":${dataJson}}`;

/**
 * Path ids as the routes read them: text, so that parseId decides whether one names a row (anything
 * else is the resource's 404, never a 422). The OpenAPI document shows them as integers (openapi.ts).
 */
export const IdParams = Type.Object({ id: Type.String({ description: 'The id' }) });
