import { keepReads } from '../../lib/kept-reads.js';
import type { Day } from '../../lib/time.js';

/**
 * "Today" is the date in the tenant's time zone (docs/rules/time-zones.md). The zone is read
 * from the registry and kept for a second at most: a new zone is forgotten at once in the process
 * that set it and, through the feed of cache changes, within a quarter of a second in every other
 * (app.ts); the second bounds it when the feed cannot be read.
 */
export interface TenantCalendar {
  today(slug: string, now?: Date): Promise<Day>;
  /** The tenant's zone has changed: the next `today` reads it again. */
  forget(slug: string): void;
}

/** The tenant's time zone as the registry has it; undefined for a tenant that is not there. */
export type ZoneReader = (slug: string) => Promise<string | undefined>;

const ZONE_KEEP_MS = 1000;
const MINUTE_MS = 60_000;
/** Since 1973 every zone's offset is whole minutes, so its date changes only on a UTC minute. */
const WHOLE_MINUTE_OFFSETS_FROM_MS = Date.UTC(1973, 0, 1);

/**
 * Per zone: its formatter, and the date it gave last and in which UTC minute. Formatting cost
 * about 7 us, as much as a tenth of the SQL of a page; every request asks for today.
 */
const zones = new Map<string, { format: Intl.DateTimeFormat; minute: number; day: Day }>();

/** The date at `moment` in `timeZone`, as YYYY-MM-DD. */
export function dayIn(timeZone: string, moment: Date): Day {
  let zone = zones.get(timeZone);
  if (!zone) {
    // en-CA writes dates as YYYY-MM-DD.
    zone = { format: new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }), minute: Number.NaN, day: '' };
    zones.set(timeZone, zone);
  }
  const ms = moment.getTime();
  const minute = Math.floor(ms / MINUTE_MS);
  if (minute === zone.minute) return zone.day;
  const day = zone.format.format(moment);
  if (ms >= WHOLE_MINUTE_OFFSETS_FROM_MS) {
    zone.minute = minute;
    zone.day = day;
  }
  return day;
}

export function createTenantCalendar(zoneOf: ZoneReader, clock: () => Date = () => new Date()): TenantCalendar {
  // The read itself is kept, so that concurrent requests share it and forget() drops one under way.
  const zones = keepReads((slug) => zoneOf(slug).then((zone) => zone ?? 'UTC'), ZONE_KEEP_MS);
  return {
    today: async (slug, now = clock()) => dayIn(await zones.get(slug), now),
    forget: (slug) => zones.forget(slug),
  };
}
