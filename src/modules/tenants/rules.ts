import { countTenants, findTenantBySlug, insertTenant, listTenants, updateTenantSettings, type TenantRow } from './queries.js';
import { DEFAULT_LOCALE, LOCALES, type Locale, type TenantRecord, type TenantUpdate } from './schemas.js';
import { errors, fieldMessages } from '../../errors.js';
import { latestTenantMigration } from '../../db/migrations/index.js';
import { readSetting, writeSetting } from '../../db/settings.js';
import type { Storage } from '../../db/storage.js';
import { slugProblem } from '../../lib/tenant-hosts.js';
import { toDbTimestamp, canonicalTimeZone } from '../../lib/time.js';

export class TenantError extends Error {
  override name = 'TenantError';
}

/**
 * Creates a tenant: its database first (file or schema, fully migrated), then its registry row,
 * so no request ever finds a tenant whose tables are not there yet. Its name is the slug, its time
 * zone UTC and its language `en` unless given; zone and language are checked before anything is
 * created.
 */
export async function createTenant(storage: Storage, slug: string, name?: string, timeZone?: string, language?: string): Promise<TenantRow> {
  const problem = slugProblem(slug);
  if (problem) throw new TenantError(problem);
  const timezone = timeZone === undefined ? 'UTC' : canonicalTimeZone(timeZone);
  if (!timezone) throw new TenantError(notAZone(timeZone!));
  const locale = language ?? DEFAULT_LOCALE;
  if (!isLocale(locale)) throw new TenantError(notALocale(locale));
  if (await findTenantBySlug(storage.registry, slug)) throw new TenantError(`tenant "${slug}" already exists`);
  await storage.provisionTenant(slug, { name: name ?? slug });
  return insertTenant(storage.registry, { slug, name: name ?? slug, timezone, locale, created_at: toDbTimestamp(new Date()) });
}

const notAZone = (zone: string) => `"${zone}" is not a time zone: use an IANA name such as Europe/Zurich`;
const notALocale = (locale: string) => `"${locale}" is not a language of the service: use ${LOCALES.join(', ')}`;
const isLocale = (value: string): value is Locale => (LOCALES as readonly string[]).includes(value);

/** Every tenant, by slug. */
export const listAllTenants = (storage: Pick<Storage, 'registry'>): Promise<TenantRow[]> => listTenants(storage.registry);

/** Whether no tenant exists yet (a first start). */
export const hasNoTenants = async (storage: Pick<Storage, 'registry'>): Promise<boolean> => (await countTenants(storage.registry)) === 0;

/** The tenant with this slug, or a TenantError that names it. */
export async function requireTenant(storage: Pick<Storage, 'registry'>, slug: string): Promise<TenantRow> {
  const tenant = await findTenantBySlug(storage.registry, slug);
  if (!tenant) throw new TenantError(`tenant "${slug}" not found`);
  return tenant;
}

/** Sets the tenant's time zone; a TenantError names a tenant or zone that does not exist. */
export async function setTenantTimezone(storage: SettingsStorage, slug: string, zone: string): Promise<TenantRow> {
  const timezone = canonicalTimeZone(zone);
  if (!timezone) throw new TenantError(notAZone(zone));
  return writeSettings(storage, slug, { timezone });
}

/** Sets the language of the tenant's mails; a TenantError names a tenant or language that does not exist. */
export async function setTenantLocale(storage: SettingsStorage, slug: string, locale: string): Promise<TenantRow> {
  if (!isLocale(locale)) throw new TenantError(notALocale(locale));
  return writeSettings(storage, slug, { locale });
}

/**
 * PATCH /tenant: the settings given, checked first (422 for a time zone that is not an IANA name;
 * its canonical spelling is kept). Events keep their moment: `starts_at` and `ends_at` are stored
 * in UTC, so only the tenant's dates ("today") move with the zone. The root group keeps its name.
 * Null when the tenant is gone.
 */
export async function changeTenantSettings(storage: SettingsStorage, slug: string, update: TenantUpdate): Promise<TenantRecord | null> {
  const settings: Partial<Pick<TenantRow, 'name' | 'timezone' | 'locale'>> = {};
  if (update.name !== undefined) settings.name = update.name;
  if (update.locale !== undefined) settings.locale = update.locale;
  if (update.timezone !== undefined) {
    const timezone = canonicalTimeZone(update.timezone);
    if (!timezone) throw errors.validation({ timezone: [fieldMessages.timezone('timezone')] });
    settings.timezone = timezone;
  }
  try {
    return toTenantRecord(await writeSettings(storage, slug, settings));
  } catch (err) {
    if (err instanceof TenantError) return null;
    throw err;
  }
}

/** What writing a tenant's settings needs: the registry, and the caches to tell. */
type SettingsStorage = Pick<Storage, 'registry' | 'invalidations'>;

/**
 * Writes settings and tells every instance's caches (the calendar's zone above all), so that a new
 * zone moves "today" everywhere at once.
 */
async function writeSettings(storage: SettingsStorage, slug: string, settings: Partial<Pick<TenantRow, 'name' | 'timezone' | 'locale'>>): Promise<TenantRow> {
  if (!(await updateTenantSettings(storage.registry, slug, settings))) throw new TenantError(`tenant "${slug}" not found`);
  if (Object.keys(settings).length > 0) await storage.invalidations.announceTenantSettings(slug);
  return requireTenant(storage, slug);
}

const toTenantRecord = (row: TenantRow): TenantRecord => ({
  slug: row.slug,
  name: row.name,
  timezone: row.timezone,
  // The column holds only what createTenant and the settings accept.
  locale: isLocale(row.locale) ? row.locale : DEFAULT_LOCALE,
});

/** The tenant as GET /tenant shows it, read from the registry (not the host cache: a new zone shows at once). */
export async function findTenantRecord(storage: Pick<Storage, 'registry'>, slug: string): Promise<TenantRecord | null> {
  const row = await findTenantBySlug(storage.registry, slug);
  return row ? toTenantRecord(row) : null;
}

/** The tenant's time zone, for the calendar (permissions/calendar.ts); undefined when it is gone. */
export async function tenantTimeZone(storage: Pick<Storage, 'registry'>, slug: string): Promise<string | undefined> {
  return (await findTenantBySlug(storage.registry, slug))?.timezone;
}

/** Registry setting: the newest tenant migration every tenant has (written after migrating all). */
const TENANTS_MIGRATED_TO = 'tenants_migrated_to';


/**
 * Brings the registry and every tenant to the latest migration, and returns how many tenants
 * there are. With `onlyWhenBehind` (every start does this), the tenants are left alone when the
 * registry records that all of them already have the newest migration: checking a thousand
 * tenants one by one took longer than 30 s on PostgreSQL. Tenants created later are migrated when
 * they are created; `groupadmin migrate` checks every tenant (after restoring an old backup, say).
 */
export async function migrateAll(storage: Storage, options: { onlyWhenBehind?: boolean } = {}): Promise<number> {
  await storage.migrateRegistry();
  const tenants = await listTenants(storage.registry);
  const latest = await latestTenantMigration();
  if (options.onlyWhenBehind && (await readSetting(storage.registry, TENANTS_MIGRATED_TO)) === latest) return tenants.length;
  for (const tenant of tenants) await storage.migrateTenant(tenant.slug, tenant);
  await writeSetting(storage.registry, TENANTS_MIGRATED_TO, latest, toDbTimestamp(new Date()));
  return tenants.length;
}
