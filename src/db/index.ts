import type { Config } from '../config.js';
import { createSqliteStorage } from './sqlite.js';
import type { Storage } from './storage.js';

/**
 * The storage the configuration asks for: SQLite files under DATA_DIR unless DATABASE_URL is set.
 * The PostgreSQL driver is loaded only when it is used (it is ~14 MB of a SQLite server's memory).
 */
export async function createStorage(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'tenantCacheSize'>): Promise<Storage> {
  if (config.databaseUrl) {
    const { createPostgresStorage } = await import('./postgres.js');
    return createPostgresStorage({ databaseUrl: config.databaseUrl });
  }
  return createSqliteStorage({ dataDir: config.dataDir, tenantCacheSize: config.tenantCacheSize });
}
