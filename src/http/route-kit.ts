import type { FastifyRequest } from 'fastify';
import type { CursorCodec } from './paging.js';
import { parseId } from './before-body.js';
import { ErrorSchema } from './schemas.js';

// What the routes of every resource share: their options, the answers they describe alike in the
// OpenAPI document, and how they read an id from the path. One home, so that a wording or a
// signature cannot drift apart between modules.

/**
 * What app.ts hands every resource's routes. `TAccess` is the permissions module's Access: the
 * request pipeline does not know the modules, so the type comes in from the routes that use it.
 */
export interface ResourceRouteOptions<TAccess> {
  /** The request's cursor codec: bound to its tenant and its list's filters. */
  cursorsOf: (request: FastifyRequest) => CursorCodec;
  /** What the caller may do today, read once per request. */
  accessOf: (request: FastifyRequest) => Promise<TAccess>;
}

/** A 403 answer, described with what the route needs beyond a valid token (`why`). */
export const forbiddenAnswer = (why?: string) => ({
  ...ErrorSchema,
  description: `Invalid ability provided., or This action is unauthorized.${why === undefined ? '' : ` (${why})`}`,
});

/** The 412 answer of a write that honours If-Match. */
export const changedAnswer = { ...ErrorSchema, description: 'If-Match names an older version: The resource was changed by someone else.' };

/** The id in the path parameter `name` (default `id`), or null when it cannot name a row (the route answers 404). */
export const idOf = (request: FastifyRequest, name = 'id'): number | null => parseId((request.params as Record<string, string | undefined>)[name]);
