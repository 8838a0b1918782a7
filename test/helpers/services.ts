import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * The shared services of this test run. CI's second run sets DATABASE_URL and REDIS_URL; then every
 * test app gets a PostgreSQL database of its own (dropped afterwards) and a Redis key prefix of its
 * own, so parallel tests never see each other's rows or budgets.
 */
export interface TestServices {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export const DATABASE_URL = process.env.DATABASE_URL || undefined;
export const REDIS_URL = process.env.REDIS_URL || undefined;

async function withAdminClient<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A new PostgreSQL database on DATABASE_URL's server, empty or a copy of `template` (which must
 * have no connection open); drop() removes it.
 */
export async function createTestDatabase(prefix = 'ga_test', template?: string): Promise<TestDatabase> {
  const name = `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  await withAdminClient((client) => client.query(`create database "${name}"${template ? ` template "${template}"` : ''}`));
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await withAdminClient((client) => client.query(`drop database if exists "${name}" with (force)`));
    },
  };
}

/**
 * `template`: a database to copy (PostgreSQL runs only); the test's database is then that copy.
 * `copied` tells whether it was: the caller sets up what the template holds only when not.
 */
export async function testServices(template: string | null = null): Promise<TestServices & { copied: boolean }> {
  const env: Record<string, string> = {};
  let drop: () => Promise<void> = async () => {};
  let copied = false;
  if (DATABASE_URL) {
    const database = await createTestDatabase('ga_test', template || undefined);
    env.DATABASE_URL = database.url;
    drop = database.drop;
    copied = Boolean(template);
  }
  if (REDIS_URL) {
    env.REDIS_URL = REDIS_URL;
    env.REDIS_KEY_PREFIX = `test-${randomUUID()}`;
  }
  return { env, cleanup: drop, copied };
}
