import type { EventRow, TenantDb } from '../../db/types.js';
import { dayIn } from '../permissions/calendar.js';
import type { TenantLetterheads } from '../notifications/rules.js';
import { tenantAppUrl } from '../mail/settings.js';
import { icsCalendar } from './ics.js';
import { familyEvent, feedEvents, toIcsEvent } from './rules.js';

/** The .ics files of a tenant: made from its name, language and zone, and PUBLIC_URL (never the Host). */
export interface CalendarFiles {
  /** A person's feed at `now`: their family's events. */
  feed(db: TenantDb, slug: string, personId: number, now: Date): Promise<Buffer>;
  /**
   * One event (that the caller sees: the caller checks) with the caller's family in it: GET
   * /events/{id}.ics, and what GET /events/{id} with `Accept: text/calendar` should answer.
   */
  event(db: TenantDb, slug: string, personId: number, event: EventRow): Promise<Buffer>;
}

export function createCalendarFiles({ letterheads, publicUrl }: { letterheads: TenantLetterheads; publicUrl: string }): CalendarFiles {
  const tenantOf = async (slug: string) => {
    const letterhead = await letterheads.of(slug);
    return { letterhead, place: { appUrl: tenantAppUrl({ publicUrl }, slug), locale: letterhead.locale } };
  };
  return {
    async feed(db, slug, personId, now) {
      const { letterhead, place } = await tenantOf(slug);
      const events = await feedEvents(db, personId, dayIn(letterhead.timeZone, now), now);
      return Buffer.from(icsCalendar(events.map((event) => toIcsEvent(event, place)), { timeZone: letterhead.timeZone, name: letterhead.name }), 'utf8');
    },
    async event(db, slug, personId, event) {
      const { letterhead, place } = await tenantOf(slug);
      const entry = await familyEvent(db, personId, event);
      return Buffer.from(icsCalendar([toIcsEvent(entry, place)], { timeZone: letterhead.timeZone, name: letterhead.name }), 'utf8');
    },
  };
}
