import { LRUCache } from 'lru-cache';
import type { Day } from '../../access/permissions.js';
import { findTenantRecord } from '../tenants/rules.js';
import type { Storage } from '../../db/storage.js';

/**
 * "Today" is the date in the tenant's time zone (groups.md section 0). The zone is read from the
 * registry and kept for a second, so a zone set with the CLI acts on every instance within that.
 */
export interface TenantCalendar {
  today(slug: string, now?: Date): Promise<Day>;
}

const ZONE_KEEP_MS = 1000;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The date at `moment` in `timeZone`, as YYYY-MM-DD. */
export function dayIn(timeZone: string, moment: Date): Day {
  let format = formatters.get(timeZone);
  if (!format) {
    // en-CA writes dates as YYYY-MM-DD.
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, format);
  }
  return format.format(moment);
}

export function createTenantCalendar(storage: Pick<Storage, 'registry'>, clock: () => Date = () => new Date()): TenantCalendar {
  const zones = new LRUCache<string, { zone: string }>({
    max: 10_000,
    ttl: ZONE_KEEP_MS,
    fetchMethod: async (slug) => ({ zone: (await findTenantRecord(storage, slug))?.timezone ?? 'UTC' }),
  });
  return {
    async today(slug, now = clock()) {
      const entry = await zones.fetch(slug);
      return dayIn(entry?.zone ?? 'UTC', now);
    },
  };
}
