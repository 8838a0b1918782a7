import type { Migration, MigrationProvider } from 'kysely';
import * as createTenants from './registry/2026-11-21T10-00-00-create-tenants.js';
import * as createSettings from './registry/2026-11-21T12-00-00-create-settings.js';
import * as createAuthChanges from './registry/2026-11-21T14-00-00-create-auth-changes.js';
import * as addTenantTimezone from './registry/2026-11-23T12-00-00-add-tenant-timezone.js';
import * as createWebhookTenants from './registry/2026-11-24T20-00-00-create-webhook-tenants.js';
import * as addTenantLocale from './registry/2026-12-07T10-00-00-add-tenant-locale.js';
import * as createUsersAndTokens from './tenant/2026-11-21T10-00-00-create-users-and-tokens.js';
import * as announceCacheChanges from './tenant/2026-11-23T10-00-00-announce-cache-changes.js';
import { createGroupsAndPeople } from './tenant/2026-11-24T10-00-00-create-groups-and-people.js';
import * as createEventsAndParticipations from './tenant/2026-11-24T14-00-00-create-events-and-participations.js';
import * as createIdempotencyKeys from './tenant/2026-11-24T16-00-00-create-idempotency-keys.js';
import * as createChangeRecords from './tenant/2026-11-24T18-00-00-create-change-records.js';
import * as createWebhooks from './tenant/2026-11-24T20-00-00-create-webhooks.js';
import * as indexPeopleInListOrder from './tenant/2026-11-24T22-00-00-index-people-in-list-order.js';
import * as keepMembersInListOrder from './tenant/2026-11-25T10-00-00-keep-members-in-list-order.js';
import * as moveVersionWithNames from './tenant/2026-11-25T21-00-00-move-version-with-names.js';
import * as keepPersonVersionInListOrder from './tenant/2026-11-26T10-00-00-keep-person-version-in-list-order.js';
import * as addTokenSessions from './tenant/2026-12-02T10-00-00-add-token-sessions.js';
import * as createMail from './tenant/2026-12-07T18-00-00-create-mail.js';
import * as addCalendars from './tenant/2026-12-07T21-00-00-add-calendars.js';

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
  '2026-11-24T20-00-00-create-webhook-tenants': createWebhookTenants,
  '2026-12-07T10-00-00-add-tenant-locale': addTenantLocale,
});

/** What a tenant's migrations need to know of it (the root group is named after the tenant). */
export interface TenantFacts {
  name: string;
}

export const tenantMigrationsFor = (tenant: TenantFacts): MigrationProvider =>
  provider({
    '2026-11-21T10-00-00-create-users-and-tokens': createUsersAndTokens,
    '2026-11-23T10-00-00-announce-cache-changes': announceCacheChanges,
    '2026-11-24T10-00-00-create-groups-and-people': createGroupsAndPeople(tenant.name),
    '2026-11-24T14-00-00-create-events-and-participations': createEventsAndParticipations,
    '2026-11-24T16-00-00-create-idempotency-keys': createIdempotencyKeys,
    '2026-11-24T18-00-00-create-change-records': createChangeRecords,
    '2026-11-24T20-00-00-create-webhooks': createWebhooks,
    '2026-11-24T22-00-00-index-people-in-list-order': indexPeopleInListOrder,
    '2026-11-25T10-00-00-keep-members-in-list-order': keepMembersInListOrder,
    '2026-11-25T21-00-00-move-version-with-names': moveVersionWithNames,
    '2026-11-26T10-00-00-keep-person-version-in-list-order': keepPersonVersionInListOrder,
    '2026-12-02T10-00-00-add-token-sessions': addTokenSessions,
    '2026-12-07T18-00-00-create-mail': createMail,
    '2026-12-07T21-00-00-add-calendars': addCalendars,
  });

/** The name of the newest tenant migration. */
export const latestTenantMigration = async (): Promise<string> =>
  Object.keys(await tenantMigrationsFor({ name: '' }).getMigrations()).sort().at(-1) ?? '';
