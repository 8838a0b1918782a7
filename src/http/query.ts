import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { errors, fieldMessages, type FieldErrors } from '../errors.js';

/**
 * On the resource endpoints (groups, people, events, the change feed and the rest; see
 * docs/api/conventions.md), a query parameter the endpoint does not take is 422 ("The foo field
 * is prohibited."). The original interface (POST /login, GET /user) and its first extensions
 * (tokens, the own profile and password, logout) keep ignoring them.
 */
export function prohibitUnknownQuery(query: unknown, allowed: readonly string[]): void {
  const unknown = Object.keys((query ?? {}) as object).filter((name) => !allowed.includes(name));
  if (unknown.length === 0) return;
  // Made from entries, so that a parameter named `__proto__` is a field like any other.
  const fieldErrors: FieldErrors = Object.fromEntries(unknown.map((name) => [name, [fieldMessages.prohibited(name)]]));
  throw errors.validation(fieldErrors);
}

const NO_QUERY = Type.Object({}, { additionalProperties: false });

/**
 * For a plugin of such resource routes: each route that declares no
 * query string takes none, so any parameter is 422 ("The foo field is prohibited.").
 */
export function refuseUnknownQueryParameters(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.schema ??= {};
    route.schema.querystring ??= NO_QUERY;
  });
}
