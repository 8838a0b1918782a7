import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  beforeAll(async () => {
    t = await buildTestApp();
    const response = await t.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { host: 'nobody.localhost' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    document = response.json();
  });
  afterAll(() => t.close());

  it('is valid OpenAPI 3.1', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.valid, JSON.stringify(result.errors ?? []).slice(0, 2000)).toBe(true);
  });

  it("lints clean with Redocly's recommended rules: no error, no warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    const described = problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} ${problem.location[0]?.pointer ?? ''}`);
    expect(described).toEqual([]);
  });

  it('documents every endpoint relative to https://{tenant}.{domain}/api, extensions marked', () => {
    expect(document.servers[0].url).toBe('https://{tenant}.{domain}/api');
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual([
      'DELETE /events/{id}', 'DELETE /groups/{id}', 'DELETE /memberships/{id}', 'DELETE /people/{id}', 'DELETE /people/{id}/guardians/{guardian_id}',
      'DELETE /people/{id}/email-status', 'DELETE /role-types/{key}', 'DELETE /session', 'DELETE /tokens', 'DELETE /tokens/{id}', 'DELETE /user/calendar', 'DELETE /webhooks/{id}', 'GET /calendar/{token}.ics', 'GET /changes', 'GET /csrf-cookie', 'GET /events', 'GET /events/{id}', 'GET /events/{id}.ics', 'GET /events/{id}/history', 'GET /events/{id}/participations',
      'GET /events/{id}/summary', 'GET /groups', 'GET /groups/{id}', 'GET /groups/{id}/history',
      'GET /groups/{id}/members', 'GET /groups/{id}/memberships', 'GET /messages', 'GET /messages/{id}', 'GET /people', 'GET /people/{id}/email-status', 'GET /people/{id}', 'GET /people/{id}/export', 'GET /people/{id}/guardians', 'GET /people/{id}/history', 'GET /people/{id}/memberships',
      'GET /people/{id}/participations',
      'GET /role-types', 'GET /tenant', 'GET /tokens', 'GET /user', 'GET /user/access', 'GET /user/agenda', 'GET /user/calendar', 'GET /user/export', 'GET /user/wards',
      'GET /webhooks', 'GET /webhooks/{id}', 'GET /webhooks/{id}/deliveries', 'PATCH /events/{id}', 'PATCH /events/{id}/participations', 'PATCH /groups/{id}', 'PATCH /memberships', 'PATCH /memberships/{id}',
      'PATCH /participations/{id}',
      'PATCH /people/{id}', 'PATCH /role-types/{key}', 'PATCH /tenant', 'PATCH /user', 'PATCH /webhooks/{id}', 'POST /events', 'POST /events/{id}/participations', 'POST /groups', 'POST /invitation/accept', 'POST /invitation/check', 'POST /login', 'POST /logout', 'POST /memberships', 'POST /messages', 'POST /password/forgot', 'POST /password/reset', 'POST /people/{id}/invitation',
      'POST /people', 'POST /people/import', 'POST /people/{id}/guardians', 'POST /role-types', 'POST /session', 'POST /tokens', 'POST /user/calendar',
      'POST /webhooks', 'POST /webhooks/{id}/test', 'PUT /user/password',
    ].sort());
    // A list that answers files too documents each form.
    const xlsx = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    expect(Object.keys(document.paths['/events/{id}/participations'].get.responses['200'].content)).toEqual(['application/json', 'text/csv', xlsx]);
    expect(Object.keys(document.paths['/people'].get.responses['200'].content)).toEqual(['application/json', 'text/csv', xlsx, 'text/vcard']);
    expect(Object.keys(document.paths['/groups/{id}/members'].get.responses['200'].content)).toEqual(['application/json', 'text/csv', xlsx, 'text/vcard']);
    // One resource as a file by Accept: a person as a vCard, an event as iCalendar.
    expect(Object.keys(document.paths['/people/{id}'].get.responses['200'].content)).toEqual(['application/json', 'text/vcard']);
    expect(Object.keys(document.paths['/events/{id}'].get.responses['200'].content)).toEqual(['application/json', 'text/calendar']);
    expect(Object.keys(document.paths['/events/{id}.ics'].get.responses['200'].content)).toEqual(['text/calendar']);
    expect(document.paths['/events'].post.tags).toEqual(['events']);
    // Each new resource under its own tag, marked as an extension.
    expect(document.paths['/groups'].get.tags).toEqual(['groups']);
    expect(document.paths['/people/{id}'].patch.tags).toEqual(['people']);
    expect(document.paths['/role-types'].post.tags).toEqual(['roles']);
    expect(document.paths['/webhooks/{id}/test'].post.tags).toEqual(['webhooks']);
    expect(document.paths['/memberships'].post['x-extension']).toBe(true);
    expect(Object.keys(document.paths['/people'].get.responses)).toContain('422');
    expect(document.paths['/login'].post.tags).toEqual(['original']);
    expect(document.paths['/user'].get.tags).toEqual(['original']);
    expect(document.paths['/user'].get['x-extension']).toBeUndefined();
    expect(document.paths['/tokens'].post.tags).toEqual(['extensions']);
    expect(document.paths['/tokens'].post['x-extension']).toBe(true);
  });

  it('documents the bodies of success and every error, the bearer scheme and the rate-limit headers', () => {
    const user = document.paths['/user'].get;
    expect(user.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const okSchema = user.responses['200'].content['application/json'].schema;
    expect(Object.keys(okSchema.properties)).toHaveLength(17);
    expect(user.responses['401'].content['application/json'].schema.properties.message.enum).toEqual(['Unauthenticated.']);
    expect(Object.keys(user.responses['429'].content['application/json'].schema.properties)).toEqual(['message', 'retry_after']);
    expect(Object.keys(user.responses['200'].headers)).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);
    expect(Object.keys(user.responses['429'].headers)).toContain('Retry-After');
    const login = document.paths['/login'].post;
    expect(Object.keys(login.responses).sort()).toEqual(['200', '400', '401', '404', '413', '415', '419', '422', '429', '500', '503']);
    expect(login.requestBody.content['application/json'].schema.required).toEqual(['username', 'password']);
  });
});
