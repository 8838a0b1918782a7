import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Command } from 'commander';
import type { FastifyInstance } from 'fastify';
import { Kysely, SqliteDialect } from 'kysely';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { buildProgram, main } from '../../src/cli/main.js';
import { createStorage } from '../../src/db/index.js';
import type { Storage } from '../../src/db/storage.js';
import { toDbTimestamp } from '../../src/lib/time.js';
import pg from 'pg';
import { tenantSchema } from '../../src/db/postgres.js';
import { buildLaravelSource } from '../helpers/laravel-source.js';
import { startServer } from '../helpers/processes.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../helpers/app.js';
import { sleep } from '../helpers/wait.js';

/**
 * Invalidation by construction, end to end: every write path there is (each route that is not a
 * read, each command of the CLI) runs on instance A or in a CLI process, and the next request on
 * instance B, which remembered what it had seen, sees the change within a second. Instance B is
 * a second app with storage of its own on the same files (or PostgreSQL database), as a second
 * process would have it. A route or command that is added without a scenario here fails the
 * first two tests, so nobody adds a write path without showing that it reaches every cache.
 */

const WITHIN_MS = 1000;

/** Commands that write nothing a cache holds, and why. Every other command has a scenario. */
const READ_ONLY_COMMANDS: Record<string, string> = {
  serve: 'runs the service',
  migrate: 'changes the schema, not rows',
  openapi: 'prints the document',
  'tenant list': 'reads',
  'token list': 'reads',
  'group list': 'reads',
  'role-type list': 'reads',
  'membership list': 'reads',
  'event list': 'reads',
  'event participants': 'reads',
  'people export': 'reads',
  'changes prune': 'deletes old change records, which no cache holds',
  'webhook list': 'reads',
  'webhook create': 'writes a webhook, which no cache holds',
  'webhook enable': 'writes a webhook, which no cache holds',
  'webhook disable': 'writes a webhook, which no cache holds',
  'webhook delete': 'deletes a webhook, which no cache holds',
  'mail list': 'reads',
  'mail show': 'reads',
  'mail release': 'queues held mail, which no cache holds',
};

describe('every write path reaches the caches of every instance within a second', () => {
  let t: TestApp;
  let storageB: Storage;
  let b: FastifyInstance;
  /** The variables the CLI reads here, restored after each test (process.env itself stays the same object). */
  const CLI_ENV = ['DATA_DIR', 'LOG_LEVEL', 'DATABASE_URL'] as const;
  const savedEnv = Object.fromEntries(CLI_ENV.map((name) => [name, process.env[name]]));

  beforeEach(async () => {
    t = await buildTestApp();
    storageB = await createStorage(t.config);
    b = await buildApp(t.config, { storage: storageB, logger: pino({ level: 'silent' }) });
    await b.ready();
    // The CLI reads its configuration from the environment, as it does in a shell.
    process.env.DATA_DIR = t.config.dataDir;
    process.env.LOG_LEVEL = 'silent';
    if (t.config.databaseUrl) process.env.DATABASE_URL = t.config.databaseUrl;
  });
  afterEach(async () => {
    for (const name of CLI_ENV) {
      if (savedEnv[name] === undefined) delete process.env[name];
      else process.env[name] = savedEnv[name];
    }
    await b.close();
    await storageB.close();
    await t.close();
  });

  const onA = (method: string, url: string, token: string | null, payload?: object) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { ...JSON_HEADERS, host: hostOf('demo'), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(payload ? { payload } : {}),
    });
  const onB = (url: string, token: string, tenant = 'demo') =>
    b.inject({ method: 'GET', url, headers: { ...JSON_HEADERS, host: hostOf(tenant), authorization: `Bearer ${token}` } });
  const userOnB = async (token: string, tenant = 'demo') => {
    const answer = await onB('/api/user', token, tenant);
    return { status: answer.statusCode, body: answer.statusCode === 200 ? answer.json() : null };
  };

  /** Runs a command of the CLI in this process and returns what it printed on stdout. */
  const cli = async (...argv: string[]) => {
    let printed = '';
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed += String(chunk);
      return true;
    });
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const status = await main(argv);
      expect(status, `groupadmin ${argv.join(' ')}`).toBe(0);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    return printed;
  };

  /** Waits until instance B shows what it should; fails when that takes longer than a second. */
  const seenOnB = async (check: () => Promise<boolean>) => {
    const started = performance.now();
    while (!(await check())) {
      if (performance.now() - started > WITHIN_MS) throw new Error(`instance B did not see the change within ${WITHIN_MS} ms`);
      await sleep(20);
    }
    return performance.now() - started;
  };

  const loginOnA = async (username = 'alice', password = PASSWORD) => {
    const answer = await onA('POST', '/api/login', null, { username, password });
    expect(answer.statusCode).toBe(200);
    return answer.json().api_key.plainTextToken as string;
  };

  /** A user with a token that instance B has just used, so B remembers the token and its user. */
  const rememberedOnB = async (username = 'alice') => {
    const user = await t.addUser('demo', { username });
    const token = await loginOnA(username);
    expect((await userOnB(token)).status).toBe(200);
    return { user, token };
  };

  const gone = (token: string) => async () => (await userOnB(token)).status === 401;
  const works = (token: string, tenant = 'demo') => async () => (await userOnB(token, tenant)).status === 200;

  /** One scenario per write route, keyed "METHOD /path" as the OpenAPI document names it. */
  const routeScenarios: Record<string, () => Promise<void>> = {
    'POST /login': async () => {
      await t.addUser('demo');
      const token = await loginOnA();
      await seenOnB(works(token));
    },
    'POST /logout': async () => {
      const { token } = await rememberedOnB();
      expect((await onA('POST', '/api/logout', token)).statusCode).toBe(200);
      await seenOnB(gone(token));
    },
    'POST /session': async () => {
      await t.addUser('demo', { username: 'sessionuser' });
      const csrf = await onA('GET', '/api/csrf-cookie', null);
      const xsrf = decodeURIComponent(/XSRF-TOKEN=([^;]+)/.exec(String(csrf.headers['set-cookie']))![1]!);
      const signedIn = await t.app.inject({
        method: 'POST',
        url: '/api/session',
        headers: { ...JSON_HEADERS, host: hostOf('demo'), cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf },
        payload: { username: 'sessionuser', password: PASSWORD },
      });
      expect(signedIn.statusCode, signedIn.body).toBe(200);
      const session = /groupadmin_session=([^;]+)/.exec(String(signedIn.headers['set-cookie']))![1]!;
      const withCookie = async () =>
        (await b.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, host: hostOf('demo'), cookie: `groupadmin_session=${session}` } })).statusCode === 200;
      await seenOnB(withCookie);
    },
    'DELETE /session': async () => {
      const { token } = await rememberedOnB();
      expect((await onA('DELETE', '/api/session', token)).statusCode).toBe(204);
      await seenOnB(gone(token));
    },
    'POST /tokens': async () => {
      const { token } = await rememberedOnB();
      const created = await onA('POST', '/api/tokens', token, { name: 'script' });
      await seenOnB(works(created.json().data.plainTextToken));
    },
    'DELETE /tokens/{id}': async () => {
      const { token } = await rememberedOnB();
      const second = await loginOnA();
      expect((await userOnB(second)).status).toBe(200);
      const id = second.split('|')[0]!;
      expect((await onA('DELETE', `/api/tokens/${id}`, token)).statusCode).toBe(204);
      await seenOnB(gone(second));
      expect((await userOnB(token)).status).toBe(200);
    },
    'DELETE /tokens': async () => {
      const { token } = await rememberedOnB();
      const second = await loginOnA();
      expect((await userOnB(second)).status).toBe(200);
      expect((await onA('DELETE', '/api/tokens', token)).statusCode).toBe(200);
      await seenOnB(gone(second));
    },
    'PATCH /user': async () => {
      const { token } = await rememberedOnB();
      expect((await onA('PATCH', '/api/user', token, { city: 'Lausanne' })).statusCode).toBe(200);
      await seenOnB(async () => (await userOnB(token)).body?.city === 'Lausanne');
    },
    'PUT /user/password': async () => {
      const { token } = await rememberedOnB();
      const changed = await onA('PUT', '/api/user/password', token, {
        current_password: PASSWORD,
        password: 'a new password 1',
        password_confirmation: 'a new password 1',
      });
      expect(changed.statusCode).toBe(200);
      await seenOnB(gone(token));
      await seenOnB(works(changed.json().api_key.plainTextToken));
    },
  };

  /**
   * The group core: an administrator (alice, admin on the root) writes on A; bob, whose token
   * instance B remembers, reads on B. Permissions are read per request, never cached, so these
   * show that nothing on B (its remembered user, its tenant facts) holds an old answer.
   */
  const groupCore = async () => {
    const { user: alice, token: admin } = await rememberedOnB('alice');
    const root = await t.rootGroupId('demo');
    await t.grant('demo', alice.id, root, 'admin');
    const { user: bob, token: bobToken } = await rememberedOnB('bob');
    const troop = (await onA('POST', '/api/groups', admin, { parent_id: root, name: 'Troop' })).json().data.group.id as number;
    const onBAs = async (url: string, token = bobToken) => (await onB(url, token)).statusCode;
    return { alice, admin, root, bob, bobToken, troop, onBAs };
  };
  const grantOnA = async (admin: string, person_id: number, group_id: number, role_type: string) => {
    const answer = await onA('POST', '/api/memberships', admin, { person_id, group_id, role_type });
    expect(answer.statusCode).toBe(201);
    return answer.json().data.membership.id as number;
  };
  const yesterday = () => new Date(Date.now() - 86_400_000 * 2).toISOString().slice(0, 10);

  Object.assign(routeScenarios, {
    'POST /groups': async () => {
      const { admin, root, bobToken } = await groupCore();
      const made = await onA('POST', '/api/groups', admin, { parent_id: root, name: 'Patrol' });
      expect(made.statusCode).toBe(201);
      await seenOnB(async () => (await onB(`/api/groups/${made.json().data.group.id}`, bobToken)).statusCode === 200);
    },
    'PATCH /groups/{id}': async () => {
      const { admin, troop, bobToken } = await groupCore();
      expect((await onB(`/api/groups/${troop}`, bobToken)).json().data.group.name).toBe('Troop');
      expect((await onA('PATCH', `/api/groups/${troop}`, admin, { name: 'Troop 7' })).statusCode).toBe(200);
      await seenOnB(async () => (await onB(`/api/groups/${troop}`, bobToken)).json().data.group.name === 'Troop 7');
    },
    'DELETE /groups/{id}': async () => {
      const { admin, troop, onBAs } = await groupCore();
      expect(await onBAs(`/api/groups/${troop}`)).toBe(200);
      expect((await onA('DELETE', `/api/groups/${troop}`, admin)).statusCode).toBe(204);
      await seenOnB(async () => (await onBAs(`/api/groups/${troop}`)) === 404);
    },
    'POST /role-types': async () => {
      const { admin, bobToken } = await groupCore();
      expect((await onA('POST', '/api/role-types', admin, { key: 'cook', label: 'Cook', permission: 'read', scope: 'group' })).statusCode).toBe(201);
      await seenOnB(async () =>
        (await onB('/api/role-types', bobToken)).json().data.role_types.some((role: { key: string }) => role.key === 'cook'),
      );
    },
    'PATCH /role-types/{key}': async () => {
      // bob reads the troop's members through a role type; lowering its permission stops that on B.
      const { admin, bob, troop, onBAs } = await groupCore();
      await onA('POST', '/api/role-types', admin, { key: 'cook', label: 'Cook', permission: 'read', scope: 'group' });
      await grantOnA(admin, bob.id, troop, 'cook');
      expect(await onBAs(`/api/groups/${troop}/memberships`)).toBe(200);
      expect((await onA('PATCH', '/api/role-types/cook', admin, { permission: 'none' })).statusCode).toBe(200);
      await seenOnB(async () => (await onBAs(`/api/groups/${troop}/memberships`)) === 403);
    },
    'DELETE /role-types/{key}': async () => {
      const { admin, bobToken } = await groupCore();
      await onA('POST', '/api/role-types', admin, { key: 'cook', label: 'Cook', permission: 'read', scope: 'group' });
      const keys = async () => (await onB('/api/role-types', bobToken)).json().data.role_types.map((role: { key: string }) => role.key);
      expect(await keys()).toContain('cook');
      expect((await onA('DELETE', '/api/role-types/cook', admin)).statusCode).toBe(204);
      await seenOnB(async () => !(await keys()).includes('cook'));
    },
    // Webhooks: no cache holds them; instance B reads what A wrote at once.
    'POST /webhooks': async () => {
      const { admin } = await groupCore();
      const id = (await onA('POST', '/api/webhooks', admin, { url: 'https://93.184.215.14/hook' })).json().data.webhook.id;
      await seenOnB(async () => (await onB(`/api/webhooks/${id}`, admin)).statusCode === 200);
    },
    'PATCH /webhooks/{id}': async () => {
      const { admin } = await groupCore();
      const id = (await onA('POST', '/api/webhooks', admin, { url: 'https://93.184.215.14/hook' })).json().data.webhook.id;
      expect((await onA('PATCH', `/api/webhooks/${id}`, admin, { enabled: false })).statusCode).toBe(200);
      await seenOnB(async () => (await onB(`/api/webhooks/${id}`, admin)).json().data.webhook.enabled === false);
    },
    'DELETE /webhooks/{id}': async () => {
      const { admin } = await groupCore();
      const id = (await onA('POST', '/api/webhooks', admin, { url: 'https://93.184.215.14/hook' })).json().data.webhook.id;
      expect((await onA('DELETE', `/api/webhooks/${id}`, admin)).statusCode).toBe(204);
      await seenOnB(async () => (await onB(`/api/webhooks/${id}`, admin)).statusCode === 404);
    },
    'POST /webhooks/{id}/test': async () => {
      const { admin } = await groupCore();
      const id = (await onA('POST', '/api/webhooks', admin, { url: 'https://93.184.215.14/hook' })).json().data.webhook.id;
      // A host that resolves to loopback: refused before any connection, and logged.
      await t.storage.tenantDb('demo').updateTable('webhooks').set({ url: 'https://localhost/hook' }).where('id', '=', id).execute();
      expect((await onA('POST', `/api/webhooks/${id}/test`, admin)).statusCode).toBe(200);
      await seenOnB(async () => (await onB(`/api/webhooks/${id}/deliveries`, admin)).json().data.deliveries.length === 1);
    },
    'POST /memberships': async () => {
      const { admin, bob, troop, onBAs } = await groupCore();
      expect(await onBAs(`/api/groups/${troop}/memberships`)).toBe(403);
      await grantOnA(admin, bob.id, troop, 'leader');
      await seenOnB(async () => (await onBAs(`/api/groups/${troop}/memberships`)) === 200);
    },
    'PATCH /memberships/{id}': async () => {
      // An ended membership stops acting on every instance at once.
      const { admin, bob, troop, onBAs } = await groupCore();
      const id = await grantOnA(admin, bob.id, troop, 'leader');
      await onA('PATCH', `/api/memberships/${id}`, admin, { start_on: '2020-01-01' });
      expect(await onBAs(`/api/groups/${troop}/memberships`)).toBe(200);
      expect((await onA('PATCH', `/api/memberships/${id}`, admin, { end_on: yesterday() })).statusCode).toBe(200);
      await seenOnB(async () => (await onBAs(`/api/groups/${troop}/memberships`)) === 403);
    },
    'PATCH /memberships': async () => {
      // The bulk form: ending a set of memberships stops them acting on every instance at once.
      const { admin, bob, troop, onBAs } = await groupCore();
      const id = await grantOnA(admin, bob.id, troop, 'leader');
      await onA('PATCH', `/api/memberships/${id}`, admin, { start_on: '2020-01-01' });
      expect(await onBAs(`/api/groups/${troop}/memberships`)).toBe(200);
      expect((await onA('PATCH', '/api/memberships', admin, { memberships: [{ id, end_on: yesterday() }] })).statusCode).toBe(200);
      await seenOnB(async () => (await onBAs(`/api/groups/${troop}/memberships`)) === 403);
    },
    'DELETE /memberships/{id}': async () => {
      const { admin, bob, troop, onBAs } = await groupCore();
      const id = await grantOnA(admin, bob.id, troop, 'leader');
      expect(await onBAs(`/api/groups/${troop}/memberships`)).toBe(200);
      expect((await onA('DELETE', `/api/memberships/${id}`, admin)).statusCode).toBe(204);
      await seenOnB(async () => (await onBAs(`/api/groups/${troop}/memberships`)) === 403);
    },
    'POST /people': async () => {
      const { admin, bob, troop, onBAs } = await groupCore();
      await grantOnA(admin, bob.id, troop, 'leader');
      const made = await onA('POST', '/api/people', admin, { firstname: 'Mia', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } });
      expect(made.statusCode).toBe(201);
      await seenOnB(async () => (await onBAs(`/api/people/${made.json().data.person.id}`)) === 200);
    },
    'PATCH /people/{id}': async () => {
      // B remembers bob's user with his token; an administrator's change of bob reaches it.
      const { admin, bob, bobToken } = await groupCore();
      expect((await onA('PATCH', `/api/people/${bob.id}`, admin, { city: 'Sion' })).statusCode).toBe(200);
      await seenOnB(async () => (await userOnB(bobToken)).body?.city === 'Sion');
    },
    'DELETE /people/{id}': async () => {
      const { admin, bob, bobToken } = await groupCore();
      expect((await onA('DELETE', `/api/people/${bob.id}`, admin)).statusCode).toBe(204);
      await seenOnB(gone(bobToken));
    },
    'POST /people/{id}/guardians': async () => {
      const { admin, bob, troop, bobToken } = await groupCore();
      const child = (await onA('POST', '/api/people', admin, { firstname: 'Mia', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id as number;
      const wards = async () => (await onB('/api/user/wards', bobToken)).json().data.wards.map((ward: { id: number }) => ward.id);
      expect(await wards()).toEqual([]);
      expect((await onA('POST', `/api/people/${child}/guardians`, admin, { guardian_id: bob.id })).statusCode).toBe(201);
      await seenOnB(async () => (await wards()).includes(child));
    },
    'DELETE /people/{id}/guardians/{guardian_id}': async () => {
      const { admin, bob, troop, onBAs } = await groupCore();
      const child = (await onA('POST', '/api/people', admin, { firstname: 'Mia', lastname: 'Kid', membership: { group_id: troop, role_type: 'member' } })).json().data.person.id as number;
      await onA('POST', `/api/people/${child}/guardians`, admin, { guardian_id: bob.id });
      expect(await onBAs(`/api/people/${child}`)).toBe(200);
      expect((await onA('DELETE', `/api/people/${child}/guardians/${bob.id}`, admin)).statusCode).toBe(204);
      await seenOnB(async () => (await onBAs(`/api/people/${child}`)) === 404);
    },
  } satisfies Record<string, () => Promise<void>>);

  /** An event: bob, a member of the troop, sees its camp on B; alice manages it on A. */
  const camp = async (fields: object = {}) => {
    const core = await groupCore();
    await grantOnA(core.admin, core.bob.id, core.troop, 'member');
    const made = await onA('POST', '/api/events', core.admin, {
      group_id: core.troop, name: 'Camp', starts_at: '2031-07-01T08:00:00Z', ends_at: '2031-07-08T16:00:00Z', ...fields,
    });
    expect(made.statusCode).toBe(201);
    const event = made.json().data.event.id as number;
    const eventOnB = async () => (await onB(`/api/events/${event}`, core.bobToken)).json().data?.event;
    return { ...core, event, eventOnB };
  };
  Object.assign(routeScenarios, {
    'POST /events': async () => {
      const { event, onBAs } = await camp();
      await seenOnB(async () => (await onBAs(`/api/events/${event}`)) === 200);
    },
    'PATCH /events/{id}': async () => {
      const { admin, event, eventOnB } = await camp();
      expect((await onA('PATCH', `/api/events/${event}`, admin, { name: 'Summer camp' })).statusCode).toBe(200);
      await seenOnB(async () => (await eventOnB())?.name === 'Summer camp');
    },
    'DELETE /events/{id}': async () => {
      const { admin, event, onBAs } = await camp();
      expect((await onA('DELETE', `/api/events/${event}`, admin)).statusCode).toBe(204);
      await seenOnB(async () => (await onBAs(`/api/events/${event}`)) === 404);
    },
    'POST /events/{id}/participations': async () => {
      const { bobToken, bob, event, eventOnB } = await camp({ capacity: 1 });
      expect((await onA('POST', `/api/events/${event}/participations`, bobToken, { person_id: bob.id })).statusCode).toBe(201);
      await seenOnB(async () => (await eventOnB())?.participants_count === 1);
    },
    'PATCH /tenant': async () => {
      // A new zone moves "today" on B: a membership that starts today in Kiritimati (UTC+14) is
      // active there, and not yet in Pago Pago (UTC-11), whatever the hour.
      const { admin, bob, troop, onBAs } = await groupCore();
      const ahead = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(new Date());
      await t.grant('demo', bob.id, troop, 'leader', { startOn: ahead });
      expect((await onA('PATCH', '/api/tenant', admin, { timezone: 'Pacific/Pago_Pago' })).statusCode).toBe(200);
      await seenOnB(async () => (await onBAs(`/api/groups/${troop}/memberships`)) === 403);
      expect((await onA('PATCH', '/api/tenant', admin, { timezone: 'Pacific/Kiritimati', name: 'Club', locale: 'de' })).statusCode).toBe(200);
      await seenOnB(async () => (await onBAs(`/api/groups/${troop}/memberships`)) === 200);
      expect((await onB('/api/tenant', admin)).json().data.tenant).toEqual({ slug: 'demo', name: 'Club', timezone: 'Pacific/Kiritimati', locale: 'de' });
    },
    'POST /people/import': async () => {
      // The import: a row matched by e-mail changes bob, whose user B remembers.
      const { admin, bob, bobToken, troop } = await groupCore();
      const answer = await t.app.inject({
        method: 'POST',
        url: `/api/people/import?group_id=${troop}&role_type=member`,
        headers: { host: hostOf('demo'), authorization: `Bearer ${admin}`, accept: 'application/json', 'content-type': 'text/csv' },
        payload: `email,city\r\n${bob.email},Sion\r\n`,
      });
      expect(answer.statusCode).toBe(200);
      await seenOnB(async () => (await userOnB(bobToken)).body?.city === 'Sion');
    },
    'PATCH /events/{id}/participations': async () => {
      // The bulk form: a cancellation in a set frees the seat on every instance's view of the event.
      const { admin, bobToken, bob, event, eventOnB } = await camp({ capacity: 1 });
      const registered = await onA('POST', `/api/events/${event}/participations`, bobToken, { person_id: bob.id });
      await seenOnB(async () => (await eventOnB())?.participants_count === 1);
      const id = registered.json().data.participation.id as number;
      expect((await onA('PATCH', `/api/events/${event}/participations`, admin, { participations: [{ id, state: 'cancelled' }] })).statusCode).toBe(200);
      await seenOnB(async () => (await eventOnB())?.participants_count === 0);
    },
    'PATCH /participations/{id}': async () => {
      const { bobToken, bob, event, eventOnB } = await camp({ capacity: 1 });
      const registered = await onA('POST', `/api/events/${event}/participations`, bobToken, { person_id: bob.id });
      await seenOnB(async () => (await eventOnB())?.participants_count === 1);
      const id = registered.json().data.participation.id as number;
      expect((await onA('PATCH', `/api/participations/${id}`, bobToken, { state: 'cancelled' })).statusCode).toBe(200);
      await seenOnB(async () => (await eventOnB())?.participants_count === 0);
    },
  } satisfies Record<string, () => Promise<void>>);

  /**
   * Mail and calendars. Without SMTP_URL mail is held in the outbox with its link: the scenarios read
   * the token from there, as `groupadmin mail show` would print it.
   */
  const linkTokenOf = async (kind: 'reset' | 'invitation', userId: number) => {
    let token: string | undefined;
    await seenOnB(async () => {
      const rows = await t.storage.tenantDb('demo').selectFrom('mails').select('text_body').where('user_id', '=', userId).where('kind', '=', kind).orderBy('id', 'desc').execute();
      token = rows.map((row) => new RegExp(`#${kind}=([A-Za-z0-9_-]{43})`).exec(row.text_body)?.[1]).find(Boolean);
      return token !== undefined;
    });
    return token!;
  };
  const postOnB = (url: string, payload: object, token?: string) =>
    b.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, host: hostOf('demo'), ...(token ? { authorization: `Bearer ${token}` } : {}) }, payload });
  /** Kim: in the troop, with an address and no login; alice (administrator of the root) may invite her. */
  const invitee = async () => {
    const core = await groupCore();
    const made = await onA('POST', '/api/people', core.admin, { firstname: 'Kim', lastname: 'New', email: 'kim@example.org', membership: { group_id: core.troop, role_type: 'member' } });
    expect(made.statusCode).toBe(201);
    return { ...core, kim: made.json().data.person.id as number };
  };
  const invited = async () => {
    const core = await invitee();
    expect((await onA('POST', `/api/people/${core.kim}/invitation`, core.admin)).statusCode).toBe(202);
    return { ...core, invitation: await linkTokenOf('invitation', core.kim) };
  };
  const feedPath = (url: string) => new URL(url).pathname;
  const feedOnB = async (path: string) => (await b.inject({ method: 'GET', url: path, headers: { host: hostOf('demo') } })).statusCode;
  Object.assign(routeScenarios, {
    'POST /password/forgot': async () => {
      const { user } = await rememberedOnB();
      expect((await onA('POST', '/api/password/forgot', null, { email: user.email })).statusCode).toBe(200);
      const token = await linkTokenOf('reset', user.id);
      const reset = await postOnB('/api/password/reset', { token, password: 'a new password', password_confirmation: 'a new password' });
      expect(reset.statusCode, reset.body).toBe(200);
    },
    'POST /password/reset': async () => {
      const { user, token } = await rememberedOnB();
      await onA('POST', '/api/password/forgot', null, { email: user.email });
      const link = await linkTokenOf('reset', user.id);
      const reset = await onA('POST', '/api/password/reset', null, { token: link, password: 'a new password', password_confirmation: 'a new password' });
      expect(reset.statusCode, reset.body).toBe(200);
      await seenOnB(gone(token));
      await seenOnB(works(reset.json().api_key.plainTextToken as string));
    },
    'POST /people/{id}/invitation': async () => {
      const { invitation } = await invited();
      await seenOnB(async () => (await postOnB('/api/invitation/check', { token: invitation })).statusCode === 200);
    },
    'POST /invitation/check': async () => {
      // A read in a POST: both instances answer it alike.
      const { invitation } = await invited();
      expect((await onA('POST', '/api/invitation/check', null, { token: invitation })).json().data.firstname).toBe('Kim');
      expect((await postOnB('/api/invitation/check', { token: invitation })).json().data.firstname).toBe('Kim');
    },
    'POST /invitation/accept': async () => {
      const { admin, kim, invitation } = await invited();
      expect((await onB(`/api/people/${kim}`, admin)).json().data.person.has_login).toBe(false);
      const accepted = await onA('POST', '/api/invitation/accept', null, { token: invitation, username: 'kim', password: 'kims password', password_confirmation: 'kims password' });
      expect(accepted.statusCode, accepted.body).toBe(200);
      await seenOnB(works(accepted.json().api_key.plainTextToken as string));
      await seenOnB(async () => (await onB(`/api/people/${kim}`, admin)).json().data.person.has_login === true);
    },
    'POST /messages': async () => {
      const { admin, troop } = await invitee();
      const sent = await onA('POST', '/api/messages', admin, { subject: 'Camp', body: 'The bus leaves at 8.', to: { group_id: troop } });
      expect(sent.statusCode, sent.body).toBe(201);
      await seenOnB(async () => (await onB(`/api/messages/${sent.json().data.message.id}`, admin)).statusCode === 200);
    },
    'DELETE /people/{id}/email-status': async () => {
      const { admin, kim } = await invitee();
      await t.storage.tenantDb('demo').insertInto('email_status')
        .values({ user_id: kim, email: 'kim@example.org', refusals: 3, last_error: '550 No such user', since: toDbTimestamp(new Date()), updated_at: toDbTimestamp(new Date()) })
        .execute();
      const state = async () => (await onB(`/api/people/${kim}/email-status`, admin)).json().data.email_status.state;
      expect(await state()).toBe('failing');
      expect((await onA('DELETE', `/api/people/${kim}/email-status`, admin)).statusCode).toBe(204);
      await seenOnB(async () => (await state()) === 'ok');
    },
    'POST /user/calendar': async () => {
      const { token } = await rememberedOnB();
      const made = await onA('POST', '/api/user/calendar', token);
      expect(made.statusCode).toBe(201);
      const path = feedPath(made.json().data.calendar.url as string);
      await seenOnB(async () => (await feedOnB(path)) === 200);
    },
    'DELETE /user/calendar': async () => {
      const { token } = await rememberedOnB();
      const path = feedPath((await onA('POST', '/api/user/calendar', token)).json().data.calendar.url as string);
      expect(await feedOnB(path)).toBe(200);
      expect((await onA('DELETE', '/api/user/calendar', token)).statusCode).toBe(204);
      await seenOnB(async () => (await feedOnB(path)) === 404);
    },
  } satisfies Record<string, () => Promise<void>>);

  /** One scenario per command that writes, keyed by its words. */
  const commandScenarios: Record<string, () => Promise<void>> = {
    'people import': async () => {
      const { bob, bobToken, troop } = await groupCore();
      const file = join(t.dataDir, 'bob.csv');
      writeFileSync(file, `email,city\r\n${bob.email},Sion\r\n`);
      await cli('people', 'import', 'demo', file, '--group', String(troop), '--role', 'member');
      await seenOnB(async () => (await userOnB(bobToken)).body?.city === 'Sion');
    },
    'tenant create': async () => {
      await cli('tenant', 'create', 'newclub');
      await cli('user', 'create', 'newclub', 'nina', '--email', 'nina@example.com', '--firstname', 'N', '--lastname', 'N');
      const token = (await cli('token', 'create', 'newclub', 'nina', '--name', 'x')).trim();
      await seenOnB(works(token, 'newclub'));
    },
    'tenant timezone': async () => {
      const { token } = await rememberedOnB();
      await cli('tenant', 'timezone', 'demo', 'Europe/Zurich');
      await seenOnB(async () => {
        const answer = await onB('/api/tenant', token);
        return answer.statusCode === 200 && answer.json().data.tenant.timezone === 'Europe/Zurich';
      });
    },
    'tenant locale': async () => {
      const { token } = await rememberedOnB();
      await cli('tenant', 'locale', 'demo', 'fr');
      await seenOnB(async () => {
        const answer = await onB('/api/tenant', token);
        return answer.statusCode === 200 && answer.json().data.tenant.locale === 'fr';
      });
    },
    'user create': async () => {
      await cli('user', 'create', 'demo', 'bob', '--email', 'bob@example.com', '--firstname', 'B', '--lastname', 'B');
      const token = (await cli('token', 'create', 'demo', 'bob', '--name', 'x')).trim();
      await seenOnB(works(token));
    },
    'user passwd': async () => {
      const { token } = await rememberedOnB();
      await cli('user', 'passwd', 'demo', 'alice');
      await seenOnB(gone(token));
    },
    'user deactivate': async () => {
      const { token } = await rememberedOnB();
      await cli('user', 'deactivate', 'demo', 'alice');
      await seenOnB(gone(token));
    },
    'user activate': async () => {
      await t.addUser('demo');
      await cli('user', 'deactivate', 'demo', 'alice');
      const token = (await cli('token', 'create', 'demo', 'alice', '--name', 'x')).trim();
      // B remembers the token of a deactivated user as refused...
      expect((await userOnB(token)).status).toBe(401);
      await cli('user', 'activate', 'demo', 'alice');
      // ...until the activation reaches it.
      await seenOnB(works(token));
    },
    'token revoke': async () => {
      const { token } = await rememberedOnB();
      const second = await loginOnA();
      expect((await userOnB(second)).status).toBe(200);
      await cli('token', 'revoke', 'demo', 'alice', '--id', second.split('|')[0]!);
      await seenOnB(gone(second));
      expect((await userOnB(token)).status).toBe(200);
      await cli('token', 'revoke', 'demo', 'alice', '--all');
      await seenOnB(gone(token));
    },
    'token create': async () => {
      await t.addUser('demo');
      const token = (await cli('token', 'create', 'demo', 'alice', '--name', 'x', '--abilities', 'user:read')).trim();
      await seenOnB(works(token));
    },
    'token prune': async () => {
      const { user, token } = await rememberedOnB();
      const db = t.storage.tenantDb('demo');
      const expired = toDbTimestamp(new Date(Date.now() - 48 * 3_600_000));
      await db.updateTable('personal_access_tokens').set({ expires_at: expired }).where('tokenable_id', '=', user.id).execute();
      await seenOnB(gone(token));
      await cli('token', 'prune', '--hours', '24');
      expect(await db.selectFrom('personal_access_tokens').select('id').execute()).toEqual([]);
      expect((await userOnB(token)).status).toBe(401);
    },
    'import laravel': async () => {
      const dir = mkdtempSync(join(tmpdir(), 'groupadmin-source-'));
      try {
        const path = join(dir, 'database.sqlite');
        const source = new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(path) }) });
        const fixture = await buildLaravelSource(source, 'sqlite');
        await source.destroy();
        await cli('tenant', 'create', 'old');
        await cli('import', 'laravel', 'old', '--from', `sqlite:${path}`);
        await seenOnB(works(fixture.tokens[0]!.plain, 'old'));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    'group create': async () => {
      const { token } = await rememberedOnB();
      const root = String(await t.rootGroupId('demo'));
      const group = JSON.parse(await cli('group', 'create', 'demo', 'Troop', '--parent', root));
      await seenOnB(async () => (await onB(`/api/groups/${group.id}`, token)).statusCode === 200);
    },
    'role-type create': async () => {
      const { token } = await rememberedOnB();
      await cli('role-type', 'create', 'demo', 'cook', '--permission', 'read', '--scope', 'group');
      await seenOnB(async () => (await onB('/api/role-types', token)).json().data.role_types.some((role: { key: string }) => role.key === 'cook'));
    },
    'membership add': async () => {
      // bob may not read the root's memberships on B until the operator makes him administrator.
      const { token } = await rememberedOnB('bob');
      const root = await t.rootGroupId('demo');
      expect((await onB(`/api/groups/${root}/memberships`, token)).statusCode).toBe(403);
      await cli('membership', 'add', 'demo', 'bob', '--group', String(root), '--role', 'admin');
      await seenOnB(async () => (await onB(`/api/groups/${root}/memberships`, token)).statusCode === 200);
    },
    down: async () => {
      const { token } = await rememberedOnB();
      await cli('down');
      await seenOnB(async () => (await userOnB(token)).status === 503);
    },
    up: async () => {
      const { token } = await rememberedOnB();
      await cli('down');
      await seenOnB(async () => (await userOnB(token)).status === 503);
      await cli('up');
      await seenOnB(works(token));
    },
  };

  it('has a scenario for every route that writes', () => {
    const paths = (t.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths;
    const writes = Object.entries(paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => !['get', 'head', 'options'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(writes.sort()).toEqual(Object.keys(routeScenarios).sort());
  });

  it('has a scenario for every command, or says why it writes nothing a cache holds', () => {
    const leaves = (command: Command, prefix: string[] = []): string[] =>
      command.commands.flatMap((sub) =>
        sub.commands.length > 0 ? leaves(sub, [...prefix, sub.name()]) : [[...prefix, sub.name()].join(' ')],
      );
    const commands = leaves(buildProgram());
    expect(commands.sort()).toEqual([...Object.keys(commandScenarios), ...Object.keys(READ_ONLY_COMMANDS)].sort());
  });

  for (const [route, scenario] of Object.entries(routeScenarios)) {
    it(`route ${route}`, scenario);
  }
  for (const [command, scenario] of Object.entries(commandScenarios)) {
    it(`groupadmin ${command}`, scenario);
  }
});

describe('a change whose process died before relaying it', () => {
  it('reaches the other instances when a server starts', async () => {
    const t = await buildTestApp();
    const storageB = await createStorage(t.config);
    const b = await buildApp(t.config, { storage: storageB, logger: pino({ level: 'silent' }) });
    await b.ready();
    let server: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      await t.addUser('demo');
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/login',
        headers: { ...JSON_HEADERS, host: hostOf('demo') },
        payload: { username: 'alice', password: PASSWORD },
      });
      const token = login.json().api_key.plainTextToken as string;
      const tokenId = Number(token.split('|')[0]);
      const onB = async () =>
        (await b.inject({ url: '/api/user', headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` } }))
          .statusCode;
      expect(await onB()).toBe(200);
      // B writes the token's first use within a second; any write to the tenant relays its whole
      // outbox, so let that pass first.
      await sleep(1500);
      // The revocation commits with its outbox row (the trigger), and its process dies before relaying:
      // here, a connection of its own that no storage watches.
      if (t.config.databaseUrl) {
        const client = new pg.Client({ connectionString: t.config.databaseUrl });
        await client.connect();
        await client.query(`delete from "${tenantSchema('demo')}".personal_access_tokens where id = $1`, [tokenId]);
        await client.end();
      } else {
        const file = new BetterSqlite3(join(t.config.dataDir, 'tenants', 'demo.sqlite'));
        file.prepare('delete from personal_access_tokens where id = ?').run(tokenId);
        file.close();
      }
      await sleep(600);
      expect(await onB()).toBe(200);
      const env: Record<string, string> = { DATA_DIR: t.config.dataDir };
      if (t.config.databaseUrl) env.DATABASE_URL = t.config.databaseUrl;
      server = await startServer(env);
      const started = performance.now();
      while ((await onB()) !== 401) {
        if (performance.now() - started > 2000) throw new Error('the leftover change did not arrive');
        await sleep(20);
      }
    } finally {
      await server?.stop();
      await b.close();
      await storageB.close();
      await t.close();
    }
  });
});
