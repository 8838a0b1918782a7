import type { TestProject } from 'vitest/node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createTenant } from '../../src/modules/tenants/rules.js';
import { openStorage } from '../../src/server/first-start.js';
import { createTestDatabase, DATABASE_URL } from './services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL database with the registry and tenant "demo" migrated, or null (SQLite run). */
    demoTemplateDatabase: string | null;
  }
}

/** The tenant every test app starts with; buildTestApp makes it when no template was copied. */
export const DEMO_TENANT = 'demo';

/**
 * Global setup of the PostgreSQL run: migrates the registry and tenant "demo" once, into a
 * database that every test app's database is then copied from (CREATE DATABASE ... TEMPLATE).
 * Creating, migrating and provisioning took about 370 ms for each test app, a copy takes about
 * 200, and a pass builds some 350 apps on PostgreSQL. The template is the very database the
 * migrations make, so what a test sees is what a fresh one would give it, timestamps of the
 * set-up apart.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  if (!DATABASE_URL) {
    project.provide('demoTemplateDatabase', null);
    return;
  }
  const template = await createTestDatabase('ga_template');
  const dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-template-'));
  try {
    const storage = await openStorage(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: template.url }));
    try {
      await createTenant(storage, DEMO_TENANT);
    } finally {
      // A template must have no connection left, or PostgreSQL refuses to copy it.
      await storage.close();
    }
  } catch (err) {
    await template.drop();
    throw err;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  project.provide('demoTemplateDatabase', template.name);
  return () => template.drop();
}
