import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { inject } from 'vitest';
import { checkContract } from './contract.js';
import { buildApp, type AppDeps } from '../../src/app.js';
import { openStorage } from '../../src/server/first-start.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Storage } from '../../src/db/storage.js';
import { createTenant } from '../../src/modules/tenants/rules.js';
import { createUser } from '../../src/modules/users/rules.js';
import type { NewUser } from '../../src/modules/users/schemas.js';
import { testServices } from './services.js';
import { DEMO_TENANT } from './pg-template.js';
import { toDbTimestamp } from '../../src/lib/time.js';
import type { UserRow } from '../../src/db/types.js';

export interface TestApp {
  app: FastifyInstance;
  storage: Storage;
  config: Config;
  dataDir: string;
  addTenant(slug: string): Promise<void>;
  addUser(tenant: string, fields?: Partial<NewUser>): Promise<UserRow>;
  /** The id of the tenant's root group. */
  rootGroupId(tenant: string): Promise<number>;
  /** Inserts a membership directly (no permission check); returns its id. */
  grant(tenant: string, personId: number, groupId: number, roleType: string, dates?: { startOn?: string; endOn?: string | null }): Promise<number>;
  /** Logs in over inject and returns the plain token. */
  login(tenant: string, username: string, password: string): Promise<string>;
  close(): Promise<void>;
}

export const PASSWORD = 'correct horse battery';

/** Host header that selects a tenant. */
export const hostOf = (tenant: string) => `${tenant}.localhost`;

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** A fresh app on a fresh temporary data directory, with tenant "demo" already there. */
export async function buildTestApp(
  env: Record<string, string> = {},
  deps: Partial<AppDeps> = {},
  /** Runs before the app is ready, e.g. to add a route that fails on purpose. */
  beforeReady?: (app: FastifyInstance) => void,
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-test-'));
  // On PostgreSQL the database is a copy of one with tenant "demo" (pg-template.ts), unless the
  // test chooses a database of its own.
  const services = await testServices(env.DATABASE_URL === undefined ? inject('demoTemplateDatabase') : null);
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_AUTHENTICATED: '100000',
    RATE_LIMIT_UNAUTHENTICATED: '100000',
    ...services.env,
    ...env,
  });
  const storage = await openStorage(config);
  if (!services.copied) await createTenant(storage, DEMO_TENANT);
  const app = await buildApp(config, { storage, ...deps });
  beforeReady?.(app);
  await app.ready();
  checkEveryAnswer(app);

  const addTenant = async (slug: string) => {
    await createTenant(storage, slug);
  };
  const addUser = async (tenant: string, fields: Partial<NewUser> = {}) => {
    const username = fields.username ?? 'alice';
    const db = storage.tenantDb(tenant);
    const created = await createUser(db, {
      username,
      email: `${username}@example.com`,
      firstname: 'Alice',
      lastname: 'Example',
      password: PASSWORD,
      ...fields,
    });
    // The whole row, password hash included, for tests that look at what is stored.
    return db.selectFrom('users').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
  };
  const login = async (tenant: string, username: string, password: string) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { ...JSON_HEADERS, host: hostOf(tenant) },
      payload: { username, password },
    });
    if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
    return response.json().api_key.plainTextToken as string;
  };
  const rootGroupId = async (tenant: string) => {
    const root = await storage.tenantDb(tenant).selectFrom('groups').select('id').where('parent_id', 'is', null).executeTakeFirstOrThrow();
    return Number(root.id);
  };
  const grant = async (tenant: string, personId: number, groupId: number, roleType: string, dates: { startOn?: string; endOn?: string | null } = {}) => {
    const now = toDbTimestamp(new Date());
    const row = await storage
      .tenantDb(tenant)
      .insertInto('memberships')
      .values({
        person_id: personId,
        group_id: groupId,
        role_type: roleType,
        label: null,
        start_on: dates.startOn ?? '2000-01-01',
        end_on: dates.endOn ?? null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  };
  return {
    app,
    storage,
    config,
    dataDir,
    addTenant,
    addUser,
    rootGroupId,
    grant,
    login,
    close: async () => {
      await app.close();
      await storage.close();
      await services.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Every answer an in-process test gets is checked against the OpenAPI document of the same app:
 * an undocumented status or field fails the test that caused it.
 */
function checkEveryAnswer(app: FastifyInstance): void {
  const document = app.swagger() as Record<string, unknown>;
  const inject = app.inject.bind(app) as (options: InjectOptions) => Promise<LightMyRequestResponse>;
  app.inject = (async (options: InjectOptions) => {
    const answer = await inject(options);
    const url = typeof options.url === 'string' ? options.url : String(options.path ?? '');
    checkContract(document, String(options.method ?? 'GET'), url, answer);
    return answer;
  }) as unknown as FastifyInstance['inject'];
}
