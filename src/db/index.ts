import type { Config } from '../config.js';
import { createSqliteStorage } from './sqlite.js';
import type { Storage } from './storage.js';

/** The storage the configuration asks for: SQLite files under DATA_DIR unless DATABASE_URL is set. */
export function createStorage(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'tenantCacheSize'>): Storage {
  if (config.databaseUrl) {
    throw new Error('PostgreSQL storage (DATABASE_URL) is not available in this version');
  }
  return createSqliteStorage({ dataDir: config.dataDir, tenantCacheSize: config.tenantCacheSize });
}
