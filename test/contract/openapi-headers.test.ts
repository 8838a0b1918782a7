import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/processes.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Document = Record<string, any>;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Every operation of the document as `METHOD /path`, with its object. */
const operationsOf = (document: Document) =>
  Object.entries(document.paths as Document).flatMap(([path, item]) =>
    Object.entries(item as Document)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, operation: operation as Document })),
  );

const successes = (operation: Document) => Object.entries(operation.responses as Document).filter(([status]) => status.startsWith('2'));
const declaresEtag = (operation: Document) => successes(operation).some(([, response]) => response.headers?.ETag !== undefined);
const declaresIfMatch = (operation: Document) => (operation.parameters ?? []).some((p: Document) => p.in === 'header' && p.name === 'If-Match');

/** The headers the document declares (docs/api/conventions.md), read from the document itself. */
describe('the OpenAPI document declares the headers and path ids', () => {
  let t: TestApp;
  let document: Document;
  beforeAll(async () => {
    t = await buildTestApp();
    document = t.app.swagger() as Document;
  });
  afterAll(() => t.close());

  it('declares ETag on the answers that carry one, beside the rate-limit headers', () => {
    const group = document.paths['/groups/{id}'];
    expect(Object.keys(group.get.responses['200'].headers)).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'ETag']);
    expect(group.get.responses['200'].headers.ETag).toMatchObject({ schema: { type: 'string' }, description: expect.stringContaining('If-Match') });
    expect(group.patch.responses['200'].headers.ETag).toBeDefined();
    expect(document.paths['/groups'].post.responses['201'].headers.ETag).toBeDefined();
    // Not on an error, not on a 204, not on a list.
    expect(group.get.responses['404'].headers.ETag).toBeUndefined();
    expect(group.delete.responses['204'].headers.ETag).toBeUndefined();
    expect(document.paths['/groups'].get.responses['200'].headers.ETag).toBeUndefined();
  });

  it('declares If-Match as a header parameter where it is honoured, and only there a 412', () => {
    const parameter = document.paths['/groups/{id}'].patch.parameters.find((p: Document) => p.name === 'If-Match');
    expect(parameter).toMatchObject({ in: 'header', required: false, schema: { type: 'string' } });
    expect(parameter.description).toMatch(/412/);
    expect(declaresIfMatch(document.paths['/groups/{id}'].delete)).toBe(true);
    expect(declaresIfMatch(document.paths['/groups/{id}'].get)).toBe(false);
    for (const { key, operation } of operationsOf(document)) {
      expect(declaresIfMatch(operation), key).toBe(operation.responses['412'] !== undefined);
    }
  });

  it('declares every path id as an integer from 1; other path parameters stay strings', () => {
    const ids = operationsOf(document).flatMap(({ key, operation }) =>
      (operation.parameters ?? []).filter((p: Document) => p.in === 'path').map((p: Document) => ({ key, ...p })),
    );
    const named = ids.filter((p) => p.name === 'id' || p.name.endsWith('_id'));
    expect(named.length).toBeGreaterThan(30);
    for (const parameter of named) expect(parameter.schema, `${parameter.key} {${parameter.name}}`).toEqual({ type: 'integer', minimum: 1 });
    expect(named.find((p) => p.name === 'guardian_id')).toBeDefined();
    expect(ids.filter((p) => !named.includes(p)).map((p) => [p.name, p.schema])).toEqual([
      ['key', { type: 'string' }],
      ['key', { type: 'string' }],
      ['token', { type: 'string' }],
    ]);
  });

  it('declares Idempotent-Replayed on the POSTs that take an Idempotency-Key, and only there', () => {
    const replayed = document.paths['/groups'].post.responses['201'].headers['Idempotent-Replayed'];
    expect(replayed).toMatchObject({ schema: { type: 'string', enum: ['true'] } });
    // Refused before the key is claimed: never a replay.
    expect(document.paths['/groups'].post.responses['401'].headers['Idempotent-Replayed']).toBeUndefined();
    expect(document.paths['/groups'].post.responses['500'].headers['Idempotent-Replayed']).toBeUndefined();
    for (const { key, operation } of operationsOf(document)) {
      const takesKey = (operation.parameters ?? []).some((p: Document) => p.in === 'header' && p.name === 'idempotency-key');
      const declared = successes(operation).some(([, response]) => response.headers['Idempotent-Replayed'] !== undefined);
      expect(declared, key).toBe(takesKey);
    }
    expect(document.paths['/tokens'].post.responses['201'].headers['Idempotent-Replayed']).toBeUndefined();
  });

  it('declares Content-Disposition on the file answers: the lists (CSV, XLSX, vCard), an event as .ics and a person as vCard', () => {
    const files = ['text/csv', 'text/vcard', 'text/calendar'];
    const withDisposition = operationsOf(document).flatMap(({ key, operation }) =>
      Object.entries(operation.responses as Document)
        .filter(([, response]) => response.headers['Content-Disposition'] !== undefined)
        .map(([status, response]) => {
          expect(Object.keys(response.content).some((type) => files.includes(type)), key).toBe(true);
          return `${key} ${status}`;
        }),
    );
    expect(withDisposition.sort()).toEqual([
      'GET /events/{id} 200', 'GET /events/{id}.ics 200', 'GET /events/{id}/participations 200', 'GET /groups/{id}/members 200', 'GET /people 200', 'GET /people/{id} 200',
    ]);
    // The feed is subscribed to, not downloaded.
    expect(document.paths['/calendar/{token}.ics'].get.responses['200'].headers['Content-Disposition']).toBeUndefined();
    expect(document.paths['/events/{id}/participations'].get.responses['200'].headers['Content-Disposition'].description).toMatch(/attachment/);
  });

  it('gives every operation a description', () => {
    const undescribed = operationsOf(document)
      .filter(({ operation }) => typeof operation.description !== 'string' || operation.description.trim() === '')
      .map(({ key }) => key);
    expect(undescribed).toEqual([]);
  });
});

/**
 * The declarations are true of the routes. Two halves, because neither alone is enough:
 *
 * - Through the app: every operation the document gives ETag answers with one, every operation it
 *   gives If-Match answers 412 to a stale one, every GET of the document answers with an ETag
 *   exactly when declared, and a sample of writes without the flag answer without. This proves the
 *   flags are not lies, whatever the handlers look like.
 * - In the source: a write the test does not call could set ETag (or read If-Match) and forget the
 *   flag; no sample finds that. So every route registered in src/ that calls etagOf or reads
 *   `request.headers['if-match']` must carry `etag: true` / `ifMatch: true` in the same
 *   registration, and the reverse. It reads text, so it also refuses what it could not attribute:
 *   a routes file that sets the header outside any registration.
 */
describe('the ETag and If-Match declarations match the routes', () => {
  it('every route that sets ETag or reads If-Match in src/ says so in its config, and no other does', () => {
    // A handler reads the header as Node gives it, lower case.
    const readsIfMatch = /headers\[['"]if-match['"]\]/;
    const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const checked: string[] = [];
    for (const file of files) {
      const source = readFileSync(join(ROOT, 'src', file), 'utf8');
      const [preamble = '', ...registrations] = source.split(/\bapp\.(?=(?:get|post|put|patch|delete)\()/);
      if (registrations.length === 0) continue;
      expect(/etagOf\(/.test(preamble) || readsIfMatch.test(preamble), `${file}: ETag or If-Match outside a route registration`).toBe(false);
      for (const registration of registrations) {
        const route = `${file} ${/^(\w+)\(\s*([^,]+),/.exec(registration)?.slice(1).join(' ')}`;
        expect(/\betag: true\b/.test(registration), `${route}: sets ETag <=> etag: true`).toBe(/etagOf\(/.test(registration));
        expect(/\bifMatch: true\b/.test(registration), `${route}: reads If-Match <=> ifMatch: true`).toBe(readsIfMatch.test(registration));
        if (/etagOf\(/.test(registration) || readsIfMatch.test(registration)) checked.push(route);
      }
    }
    // The scan found the routes it is about (it would pass vacuously on a changed layout).
    expect(checked.length).toBeGreaterThanOrEqual(25);
  });

  describe('through the app', () => {
    let t: TestApp;
    let document: Document;
    let token: string;
    const ids: Record<string, number> = {};
    let roleKey: string;
    /** The secret of a calendar feed address (GET /calendar/{token}.ics). */
    let feedToken: string;

    const call = (method: Method, url: string, payload?: object, headers: Record<string, string> = {}) =>
      t.app.inject({
        method,
        url: `/api${url}`,
        headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}`, ...headers },
        ...(payload === undefined ? {} : { payload }),
      });
    const created = async (url: string, payload: object, field: string): Promise<number> => {
      const answer = await call('POST', url, payload);
      expect(answer.statusCode, answer.body).toBe(201);
      return answer.json().data[field].id as number;
    };
    const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const inTwoWeeks = new Date(Date.now() + 14 * 86_400_000).toISOString();

    beforeAll(async () => {
      // A webhook's address may be on this machine: nothing is delivered in these tests.
      t = await buildTestApp({ WEBHOOKS_ALLOW_PRIVATE: 'true' });
      document = t.app.swagger() as Document;
      const admin = await t.addUser('demo', { username: 'admin' });
      ids.root = await t.rootGroupId('demo');
      await t.grant('demo', admin.id, ids.root, 'admin');
      token = await t.login('demo', 'admin', PASSWORD);
      ids.group = await created('/groups', { parent_id: ids.root, name: 'Troop' }, 'group');
      ids.person = await created('/people', { firstname: 'Ada', lastname: 'Lovelace', membership: { group_id: ids.group, role_type: 'member' } }, 'person');
      ids.guardian = await created('/people', { firstname: 'Anne', lastname: 'Byron', membership: { group_id: ids.group, role_type: 'member' } }, 'person');
      ids.linkedGuardian = await created('/people', { firstname: 'Mary', lastname: 'King', membership: { group_id: ids.group, role_type: 'member' } }, 'person');
      expect((await call('POST', `/people/${ids.person}/guardians`, { guardian_id: ids.linkedGuardian })).statusCode).toBe(201);
      ids.membership = await created('/memberships', { person_id: ids.person, group_id: ids.root, role_type: 'member' }, 'membership');
      ids.event = await created('/events', { group_id: ids.group, name: 'Camp', starts_at: inAWeek, ends_at: inTwoWeeks }, 'event');
      ids.participation = await created(`/events/${ids.event}/participations`, { person_id: ids.person }, 'participation');
      ids.webhook = await created('/webhooks', { url: 'http://127.0.0.1:9/hook' }, 'webhook');
      ids.message = await created('/messages', { subject: 'Camp', body: 'The bus leaves at 8.', to: { group_id: ids.group } }, 'message');
      const feed = await call('POST', '/user/calendar');
      expect(feed.statusCode, feed.body).toBe(201);
      feedToken = /\/api\/calendar\/([^/]+)\.ics$/.exec(feed.json().data.calendar.url as string)![1]!;
      roleKey = 'helper_role';
      expect((await call('POST', '/role-types', { key: roleKey, permission: 'read', scope: 'group' })).statusCode).toBe(201);
    }, 60_000);
    afterAll(() => t?.close());

    it('sends ETag on every operation the document says carries one', async () => {
      const requests: Record<string, () => Promise<LightMyRequestResponse>> = {
        'GET /groups/{id}': () => call('GET', `/groups/${ids.group}`),
        'POST /groups': () => call('POST', '/groups', { parent_id: ids.root, name: 'Another troop' }),
        'PATCH /groups/{id}': () => call('PATCH', `/groups/${ids.group}`, { description: 'Changed' }),
        'POST /role-types': () => call('POST', '/role-types', { key: 'cook', permission: 'none', scope: 'group' }),
        'PATCH /role-types/{key}': () => call('PATCH', `/role-types/${roleKey}`, { label: 'Helper' }),
        'GET /people/{id}': () => call('GET', `/people/${ids.person}`),
        'POST /people': () => call('POST', '/people', { firstname: 'Bea', lastname: 'B', membership: { group_id: ids.group, role_type: 'member' } }),
        'PATCH /people/{id}': () => call('PATCH', `/people/${ids.person}`, { city: 'London' }),
        'POST /people/{id}/guardians': () => call('POST', `/people/${ids.person}/guardians`, { guardian_id: ids.guardian }),
        'POST /memberships': () => call('POST', '/memberships', { person_id: ids.guardian, group_id: ids.root, role_type: 'member' }),
        'PATCH /memberships/{id}': () => call('PATCH', `/memberships/${ids.membership}`, { label: 'Treasurer' }),
        'GET /events/{id}': () => call('GET', `/events/${ids.event}`),
        'POST /events': () => call('POST', '/events', { group_id: ids.group, name: 'Hike', starts_at: inAWeek, ends_at: inTwoWeeks }),
        'PATCH /events/{id}': () => call('PATCH', `/events/${ids.event}`, { location: 'Hut' }),
        'POST /events/{id}/participations': () => call('POST', `/events/${ids.event}/participations`, { person_id: ids.guardian }),
        'PATCH /participations/{id}': () => call('PATCH', `/participations/${ids.participation}`, { notes: 'Vegetarian' }),
        'POST /webhooks': () => call('POST', '/webhooks', { url: 'http://127.0.0.1:9/other' }),
        'GET /webhooks/{id}': () => call('GET', `/webhooks/${ids.webhook}`),
        'PATCH /webhooks/{id}': () => call('PATCH', `/webhooks/${ids.webhook}`, { description: 'Sync' }),
        'GET /calendar/{token}.ics': () => call('GET', `/calendar/${feedToken}.ics`),
      };
      const declared = operationsOf(document).filter(({ operation }) => declaresEtag(operation)).map(({ key }) => key);
      expect(Object.keys(requests).sort()).toEqual(declared.sort());
      for (const [key, request] of Object.entries(requests)) {
        const answer = await request();
        expect(answer.statusCode, `${key}: ${answer.body}`).toBeLessThan(300);
        // A calendar feed's ETag is a hash of its content (If-None-Match), not a version (If-Match).
        expect(answer.headers.etag, key).toMatch(key === 'GET /calendar/{token}.ics' ? /^"[\w-]+"$/ : /^"\d+"$/);
      }
    });

    it('answers 412 to a stale If-Match on every operation the document says honours it', async () => {
      const stale = { 'if-match': '"stale"' };
      const requests: Record<string, () => Promise<LightMyRequestResponse>> = {
        'PATCH /groups/{id}': () => call('PATCH', `/groups/${ids.group}`, { name: 'Stale' }, stale),
        'DELETE /groups/{id}': () => call('DELETE', `/groups/${ids.group}`, undefined, stale),
        'PATCH /role-types/{key}': () => call('PATCH', `/role-types/${roleKey}`, { label: 'Stale' }, stale),
        'DELETE /role-types/{key}': () => call('DELETE', `/role-types/${roleKey}`, undefined, stale),
        'PATCH /people/{id}': () => call('PATCH', `/people/${ids.person}`, { city: 'Stale' }, stale),
        'DELETE /people/{id}': () => call('DELETE', `/people/${ids.person}`, undefined, stale),
        'PATCH /memberships/{id}': () => call('PATCH', `/memberships/${ids.membership}`, { label: 'Stale' }, stale),
        'DELETE /memberships/{id}': () => call('DELETE', `/memberships/${ids.membership}`, undefined, stale),
        'PATCH /events/{id}': () => call('PATCH', `/events/${ids.event}`, { name: 'Stale' }, stale),
        'DELETE /events/{id}': () => call('DELETE', `/events/${ids.event}`, undefined, stale),
        'PATCH /participations/{id}': () => call('PATCH', `/participations/${ids.participation}`, { notes: 'Stale' }, stale),
        'PATCH /webhooks/{id}': () => call('PATCH', `/webhooks/${ids.webhook}`, { description: 'Stale' }, stale),
        'DELETE /webhooks/{id}': () => call('DELETE', `/webhooks/${ids.webhook}`, undefined, stale),
      };
      const declared = operationsOf(document).filter(({ operation }) => declaresIfMatch(operation)).map(({ key }) => key);
      expect(Object.keys(requests).sort()).toEqual(declared.sort());
      for (const [key, request] of Object.entries(requests)) {
        const answer = await request();
        expect(answer.statusCode, `${key}: ${answer.body}`).toBe(412);
      }
    });

    it('sends ETag on a GET exactly when the document declares it, and none on writes without the flag', async () => {
      // Every GET of the document, its ids filled in by the resource its path starts with.
      const idFor: Record<string, number | undefined> = { groups: ids.group, people: ids.person, events: ids.event, webhooks: ids.webhook, messages: ids.message };
      const gets = operationsOf(document).filter(({ method }) => method === 'GET');
      expect(gets.length).toBeGreaterThan(20);
      for (const { key, path, operation } of gets) {
        const resource = path.split('/')[1]!;
        const url = path
          .replace(/\{id\}/, () => {
            expect(idFor[resource], `${key}: which id?`).toBeDefined();
            return String(idFor[resource]);
          })
          .replace('{token}', () => feedToken);
        const answer = await call('GET', url);
        // GET /csrf-cookie only sets a cookie (204); every other GET answers a body.
        expect(answer.statusCode, `${key}: ${answer.body}`).toBe(key === 'GET /csrf-cookie' ? 204 : 200);
        expect(answer.headers.etag !== undefined, key).toBe(declaresEtag(operation));
      }

      const writes: [string, () => Promise<LightMyRequestResponse>][] = [
        ['PATCH /user', () => call('PATCH', '/user', { city: 'Zurich' })],
        ['DELETE /people/{id}/guardians/{guardian_id}', () => call('DELETE', `/people/${ids.person}/guardians/${ids.linkedGuardian}`)],
        ['DELETE /memberships/{id}', () => call('DELETE', `/memberships/${ids.membership}`)],
        ['DELETE /webhooks/{id}', () => call('DELETE', `/webhooks/${ids.webhook}`)],
      ];
      for (const [key, request] of writes) {
        const operation = operationsOf(document).find((entry) => entry.key === key)!.operation;
        expect(declaresEtag(operation), key).toBe(false);
        const answer = await request();
        expect(answer.statusCode, `${key}: ${answer.body}`).toBeLessThan(300);
        expect(answer.headers.etag, key).toBeUndefined();
      }
    });

    it('sends Idempotent-Replayed on a repeated POST and Content-Disposition on the file answers', async () => {
      const key = { 'idempotency-key': 'openapi-headers-1' };
      const body = { parent_id: ids.root, name: 'Once' };
      const first = await call('POST', '/groups', body, key);
      expect(first.statusCode).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const again = await call('POST', '/groups', body, key);
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers.etag).toBe(first.headers.etag);

      const csv = { accept: 'text/csv' };
      const participants = await call('GET', `/events/${ids.event}/participations`, undefined, csv);
      expect(participants.statusCode).toBe(200);
      expect(participants.headers['content-disposition']).toBe(`attachment; filename="event-${ids.event}-participants.csv"`);
      const people = await call('GET', '/people', undefined, csv);
      expect(people.statusCode).toBe(200);
      expect(people.headers['content-disposition']).toMatch(/^attachment; filename="people-.+\.csv"$/);
      const vcard = { accept: 'text/vcard' };
      expect((await call('GET', '/people', undefined, vcard)).headers['content-disposition']).toMatch(/^attachment; filename="people-\d{4}-\d{2}-\d{2}\.vcf"$/);
      expect((await call('GET', `/people/${ids.person}`, undefined, vcard)).headers['content-disposition']).toBe(`attachment; filename="person-${ids.person}.vcf"`);
      expect((await call('GET', `/groups/${ids.group}/members?format=vcf`)).headers['content-disposition']).toMatch(
        new RegExp(`^attachment; filename="members-${ids.group}-\\d{4}-\\d{2}-\\d{2}\\.vcf"$`),
      );
      const ics = await call('GET', `/events/${ids.event}`, undefined, { accept: 'text/calendar' });
      expect(ics.headers['content-disposition']).toBe(`attachment; filename="event-${ids.event}.ics"`);
      expect(ics.headers.etag).toMatch(/^"\d+"$/);
      expect((await call('GET', `/events/${ids.event}.ics`)).headers['content-disposition']).toBe(`attachment; filename="event-${ids.event}.ics"`);
    });
  });
});
