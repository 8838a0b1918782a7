import { isTenantSettingsChange } from '../../db/invalidation/queries.js';
import type { Storage } from '../../db/storage.js';
import { keepReads } from '../../lib/kept-reads.js';
import { findTenantRecord } from '../tenants/rules.js';
import { DEFAULT_LOCALE, type Locale } from '../tenants/schemas.js';

/** What every mail of a tenant shows of it: its name (the From name), language and time zone. */
export interface Letterhead {
  slug: string;
  name: string;
  locale: Locale;
  timeZone: string;
}

export interface TenantLetterheads {
  of(slug: string): Promise<Letterhead>;
}

/**
 * Kept for a second, as the calendar keeps a tenant's zone (permissions/calendar.ts): a storm of
 * registrations, each of which writes a mail, reads the registry once a second per tenant instead
 * of once per request. A renamed tenant or a new language shows at once in mails of the process
 * that changed it, and within that second in every other.
 */
const KEEP_MS = 1000;

export function createTenantLetterheads(storage: Pick<Storage, 'registry'> & Partial<Pick<Storage, 'invalidations'>>): TenantLetterheads {
  const kept = keepReads<Letterhead>(
    (slug) =>
      findTenantRecord(storage, slug).then((tenant) => ({
        slug,
        name: tenant?.name ?? slug,
        locale: tenant?.locale ?? DEFAULT_LOCALE,
        timeZone: tenant?.timezone ?? 'UTC',
      })),
    KEEP_MS,
  );
  storage.invalidations?.subscribe((change) => {
    if (isTenantSettingsChange(change)) kept.forget(change.tenant);
  });
  return { of: (slug) => kept.get(slug) };
}
