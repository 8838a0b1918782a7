import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Storage } from '../../src/db/storage.js';
import { openStorage } from '../../src/server/first-start.js';
import { createTenantAndUser, http, runCli, startServer, type ServerProcess } from '../helpers/processes.js';
import { testServices, type TestServices } from '../helpers/services.js';

/**
 * Change records and the feed under concurrency: two built server processes on one storage
 * take 500 random changes at once while a reader follows the feed the whole time. The reader ends
 * with every change exactly once, and in an order where each resource's updates follow each other
 * (the old value of each update is the new value of the one before it).
 */
describe('the change feed under concurrent writers', () => {
  let dataDir: string;
  let services: TestServices;
  let env: Record<string, string>;
  let servers: ServerProcess[];
  let storage: Storage;
  let token: string;

  const call = async (server: ServerProcess, method: string, path: string, body?: object) => {
    const answer = await http(server.port, {
      method,
      path: `/api${path}`,
      headers: {
        host: 'acme.localhost',
        accept: 'application/json',
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: answer.status, body: answer.body === '' ? null : JSON.parse(answer.body) };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-feed-e2e-'));
    services = await testServices();
    env = { DATA_DIR: dataDir, RATE_LIMIT_UNAUTHENTICATED: '100000', RATE_LIMIT_AUTHENTICATED: '100000', ...services.env };
    expect((await runCli(['migrate'], env)).status).toBe(0);
    await createTenantAndUser(env);
    servers = await Promise.all([startServer(env), startServer(env)]);
    const login = await http(servers[0]!.port, {
      method: 'POST',
      path: '/api/login',
      headers: { host: 'acme.localhost', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'a long password' }),
    });
    token = JSON.parse(login.body).api_key.plainTextToken;
    storage = await openStorage(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...services.env }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await storage?.close();
    await services.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives a reader every change exactly once, in an order consistent with each resource', async () => {
    const root = (await call(servers[0]!, 'GET', '/groups?limit=1')).body.data.groups[0].id as number;
    const groups = [root];
    const people: number[] = [];
    let random = 42;
    const next = (n: number) => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return random % n;
    };
    let answered = 0;
    const write = async (index: number) => {
      const server = servers[index % 2]!;
      const pick = next(4);
      if (pick === 0 || groups.length < 3) {
        const created = await call(server, 'POST', '/groups', { parent_id: groups[next(groups.length)], name: `Group ${index}` });
        expect(created.status).toBe(201);
        groups.push(created.body.data.group.id);
      } else if (pick === 1) {
        expect((await call(server, 'PATCH', `/groups/${groups[1 + next(groups.length - 1)]}`, { name: `Renamed ${index}` })).status).toBe(200);
      } else if (pick === 2 || people.length === 0) {
        const created = await call(server, 'POST', '/people', { firstname: 'P', lastname: `${index}`, membership: { group_id: root, role_type: 'member' } });
        expect(created.status).toBe(201);
        people.push(created.body.data.person.id);
      } else {
        expect((await call(server, 'PATCH', `/people/${people[next(people.length)]}`, { city: `City ${index}` })).status).toBe(200);
      }
      answered++;
    };

    // The reader follows the feed the whole time, from both instances.
    const seen: number[] = [];
    let after = 0;
    let writing = true;
    const readPage = async (round: number) => {
      const page = await call(servers[round % 2]!, 'GET', `/changes?after=${after}&limit=50`);
      expect(page.status).toBe(200);
      for (const change of page.body.data.changes) seen.push(change.seq);
      after = page.body.data.next_after;
      return page.body.data.changes.length;
    };
    const reader = (async () => {
      for (let round = 0; writing; round++) await readPage(round);
      while ((await readPage(0)) > 0);
    })();

    // 500 writes, eight at a time, spread over both instances.
    let index = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (index < 500) await write(index++);
      }),
    );
    writing = false;
    await reader;
    expect(answered).toBe(500);

    const stored = await storage.tenantDb('acme').selectFrom('change_records').selectAll().orderBy('seq').execute();
    expect(seen).toEqual(stored.map((record) => Number(record.seq)));
    expect(new Set(seen).size).toBe(seen.length);
    // Each resource's records, in feed order: created first, then updates chaining old to new.
    const last = new Map<string, Record<string, unknown>>();
    for (const record of stored) {
      const key = `${record.entity}:${record.entity_id}`;
      if (record.action === 'created') {
        expect(last.has(key), key).toBe(false);
        last.set(key, {});
        continue;
      }
      expect(last.has(key), `${key} updated before it was created`).toBe(true);
      const state = last.get(key)!;
      for (const [field, [old, now]] of Object.entries(JSON.parse(record.changes) as Record<string, [unknown, unknown]>)) {
        if (field in state) expect(old, `${key}.${field} at seq ${record.seq}`).toEqual(state[field]);
        state[field] = now;
      }
    }
  }, 180_000);
});
