import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Migration } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createStorage } from '../../src/db/index.js';
import * as createTenants from '../../src/db/migrations/registry/2026-11-21T10-00-00-create-tenants.js';
import * as createSettings from '../../src/db/migrations/registry/2026-11-21T12-00-00-create-settings.js';
import * as createAuthChanges from '../../src/db/migrations/registry/2026-11-21T14-00-00-create-auth-changes.js';
import * as createUsersAndTokens from '../../src/db/migrations/tenant/2026-11-21T10-00-00-create-users-and-tokens.js';
import { REGISTRY_SCHEMA, tenantSchema } from '../../src/db/postgres.js';
import type { Storage } from '../../src/db/storage.js';
import { toDbTimestamp } from '../../src/lib/time.js';
import { hashPassword } from '../../src/lib/passwords/passwords.js';
import { migrateAll } from '../../src/modules/tenants/rules.js';
import { hashTokenSecret } from '../../src/modules/tokens/secrets.js';
import { hostOf, JSON_HEADERS } from '../helpers/app.js';
import { testServices, type TestServices } from '../helpers/services.js';

/**
 * A service that ran the schema of 2026-11-21 (registry and one tenant, with a user and a token)
 * is started with today's code: every start migrates, nothing is lost, the token still works, and
 * the new outbox triggers announce a revocation.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const at = async (db: Kysely<any>, migrations: Record<string, Migration>, schema?: string) => {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
};

describe('migrating a service made by the previous schema', () => {
  let services: TestServices;
  let dataDir: string;
  let config: Config;
  let storage: Storage | undefined;
  beforeEach(async () => {
    services = await testServices();
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-old-'));
    config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...services.env });
  });
  afterEach(async () => {
    await storage?.close();
    await services.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The registry and tenant "acme" as the code of 2026-11-21 left them, with alice and one token. */
  const buildOldService = async (secret: string) => {
    const now = toDbTimestamp(new Date());
    const registryMigrations = {
      '2026-11-21T10-00-00-create-tenants': createTenants,
      '2026-11-21T12-00-00-create-settings': createSettings,
      '2026-11-21T14-00-00-create-auth-changes': createAuthChanges,
    };
    const tenantMigrations = { '2026-11-21T10-00-00-create-users-and-tokens': createUsersAndTokens };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let registry: Kysely<any>;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let tenant: Kysely<any>;
    let close: () => Promise<void>;
    if (config.databaseUrl) {
      const root = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: config.databaseUrl, max: 2 }) }) });
      for (const schema of [REGISTRY_SCHEMA, tenantSchema('acme')]) await sql`create schema ${sql.id(schema)}`.execute(root);
      registry = root.withSchema(REGISTRY_SCHEMA);
      tenant = root.withSchema(tenantSchema('acme'));
      await at(registry, registryMigrations, REGISTRY_SCHEMA);
      await at(tenant, tenantMigrations, tenantSchema('acme'));
      close = () => root.destroy();
    } else {
      mkdirSync(join(dataDir, 'tenants'));
      registry = new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'registry.sqlite')) }) });
      tenant = new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'tenants', 'acme.sqlite')) }) });
      await at(registry, registryMigrations);
      await at(tenant, tenantMigrations);
      close = async () => {
        await registry.destroy();
        await tenant.destroy();
      };
    }
    await registry.insertInto('tenants').values({ slug: 'acme', name: 'Acme Club', created_at: now }).execute();
    const flag = (value: boolean) => (config.databaseUrl ? value : value ? 1 : 0);
    await tenant
      .insertInto('users')
      .values({
        username: 'alice', email: 'alice@example.com', firstname: 'Alice', lastname: 'Smith', gender_id: null, type_id: null,
        phonenumber: null, phonenumber_mobile: null, street: null, housenumber: null, zip: null, city: 'Bonn',
        is_vegetarian: flag(true), can_swimm: flag(false), password: await hashPassword('a long password'),
        is_active: flag(true), created_at: now, updated_at: now,
      })
      .execute();
    await tenant
      .insertInto('personal_access_tokens')
      .values({
        id: 5, tokenable_type: 'App\\Models\\User', tokenable_id: 1, name: 'API-Key', token: hashTokenSecret(secret),
        abilities: '["*"]', last_used_at: null, expires_at: null, created_at: now, updated_at: now,
      })
      .execute();
    await close();
  };

  it('keeps every row and token, and announces changes from then on', async () => {
    const secret = 'old0123456789old0123456789old0123456789ab';
    await buildOldService(secret);
    storage = await createStorage(config);
    await migrateAll(storage, { onlyWhenBehind: true });
    const tenants = await storage.registry.selectFrom('tenants').select(['slug', 'name', 'timezone', 'locale']).execute();
    expect(tenants).toEqual([{ slug: 'acme', name: 'Acme Club', timezone: 'UTC', locale: 'en' }]);
    // The tenant got its root group, named after it, and the default role types; the
    // existing user keeps every field, gains the name sort keys, and is granted nothing.
    const db = storage.tenantDb('acme');
    const groups = await db.selectFrom('groups').select(['parent_id', 'name', 'kind']).execute();
    expect(groups).toEqual([{ parent_id: null, name: 'Acme Club', kind: '' }]);
    const roleTypes = await db.selectFrom('role_types').select(['key', 'label', 'permission', 'scope']).orderBy('id').execute();
    expect(roleTypes.map((r) => Object.values(r).join(' '))).toEqual([
      'admin Administrator admin subtree', 'leader Leader write subtree', 'assistant Assistant read group', 'member Member none group',
    ]);
    expect(await db.selectFrom('memberships').selectAll().execute()).toEqual([]);
    const alice = await db.selectFrom('users').select(['username', 'lastname_key', 'firstname_key', 'birthday', 'version']).executeTakeFirstOrThrow();
    expect(alice).toEqual({ username: 'alice', lastname_key: 'smith', firstname_key: 'alice', birthday: null, version: 1 });

    const app = await buildApp(config, { storage, logger: pino({ level: 'silent' }) });
    try {
      const headers = { ...JSON_HEADERS, host: hostOf('acme'), authorization: `Bearer 5|${secret}` };
      const user = await app.inject({ method: 'GET', url: '/api/user', headers });
      expect(user.statusCode).toBe(200);
      expect(user.json()).toMatchObject({ id: 1, username: 'alice', city: 'Bonn', is_vegetarian: true, can_swimm: false });
      const login = await app.inject({
        method: 'POST',
        url: '/api/login',
        headers: { ...JSON_HEADERS, host: hostOf('acme') },
        payload: { username: 'alice', password: 'a long password' },
      });
      expect(login.statusCode).toBe(200);
      // The new triggers announce a revocation: the feed gets it, the outbox is empty again.
      expect((await app.inject({ method: 'POST', url: '/api/logout', headers })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/api/user', headers })).statusCode).toBe(401);
      const feed = await storage.registry.selectFrom('auth_changes').select(['tenant', 'token_id']).where('token_id', 'is not', null).execute();
      expect(feed.map((row) => ({ tenant: row.tenant, token_id: Number(row.token_id) }))).toEqual([{ tenant: 'acme', token_id: 5 }]);
      expect(await storage.tenantDb('acme').selectFrom('cache_changes').selectAll().execute()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
