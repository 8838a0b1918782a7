import type { Config } from '../config.js';
import { createPostgresStorage } from './postgres.js';
import { createSqliteStorage } from './sqlite.js';
import type { Storage } from './storage.js';

/** The storage the configuration asks for: SQLite files under DATA_DIR unless DATABASE_URL is set. */
export function createStorage(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'tenantCacheSize'>): Storage {
  if (config.databaseUrl) return createPostgresStorage({ databaseUrl: config.databaseUrl });
  return createSqliteStorage({ dataDir: config.dataDir, tenantCacheSize: config.tenantCacheSize });
}
