import type { Migration, MigrationProvider } from 'kysely';
import * as createTenants from './registry/2026-11-21T10-00-00-create-tenants.js';
import * as createSettings from './registry/2026-11-21T12-00-00-create-settings.js';
import * as createAuthChanges from './registry/2026-11-21T14-00-00-create-auth-changes.js';
import * as addTenantTimezone from './registry/2026-11-23T12-00-00-add-tenant-timezone.js';
import * as createUsersAndTokens from './tenant/2026-11-21T10-00-00-create-users-and-tokens.js';
import * as announceCacheChanges from './tenant/2026-11-23T10-00-00-announce-cache-changes.js';

// Listed by hand rather than read from a folder, so the compiled service and the tests
// run exactly the same set, whatever the file extension. Names sort by date.

const provider = (migrations: Record<string, Migration>): MigrationProvider => ({
  getMigrations: async () => migrations,
});

export const registryMigrations = provider({
  '2026-11-21T10-00-00-create-tenants': createTenants,
  '2026-11-21T12-00-00-create-settings': createSettings,
  '2026-11-21T14-00-00-create-auth-changes': createAuthChanges,
  '2026-11-23T12-00-00-add-tenant-timezone': addTenantTimezone,
});

export const tenantMigrations = provider({
  '2026-11-21T10-00-00-create-users-and-tokens': createUsersAndTokens,
  '2026-11-23T10-00-00-announce-cache-changes': announceCacheChanges,
});
