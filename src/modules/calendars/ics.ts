import ical from 'ical-generator';
import { tzlib_get_ical_block } from 'timezones-ical-library';

// iCalendar (RFC 5545) files of events, written by ical-generator (escaping, folding at 75
// octets, CRLF) with the VTIMEZONE of the tenant's zone from timezones-ical-library.

export const ICS_MEDIA_TYPE = 'text/calendar; charset=utf-8';

/** One VEVENT, in the terms of RFC 5545. */
export interface IcsEvent {
  /** `event-<id>@<tenant host>`: stable, so a calendar updates the event instead of adding another. */
  uid: string;
  /** DTSTAMP: the event's last change. */
  stamp: Date;
  start: Date;
  end: Date;
  summary: string;
  location: string | null;
  description: string | null;
  url: string;
  sequence: number;
}

/** The VTIMEZONE of a zone and the TZID it names (UTC is `Etc/UTC` there); null for a zone the library lacks. */
interface ZoneBlock {
  tzid: string;
  vtimezone: string;
}

const zoneBlocks = new Map<string, ZoneBlock | null>();

function zoneBlockOf(zone: string): ZoneBlock | null {
  let block = zoneBlocks.get(zone);
  if (block === undefined) {
    const found = tzlib_get_ical_block(zone);
    block = Array.isArray(found) && found.length === 2 && found[1]!.startsWith('TZID=') ? { vtimezone: found[0]!, tzid: found[1]!.slice('TZID='.length) } : null;
    zoneBlocks.set(zone, block);
  }
  return block;
}

const wallClockFormats = new Map<string, Intl.DateTimeFormat>();

/** The offset of `zone` from UTC at `ms`, in ms (positive east of Greenwich). */
function offsetMs(zone: string, ms: number): number {
  let format = wallClockFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    wallClockFormats.set(zone, format);
  }
  const part = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, Number(p.value)]));
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * A moment that ical-generator writes as the wall-clock time of a zone. Given a plain Date and a
 * TZID it would write the time of the server's own zone; a TZDate (the type of @date-fns/tz,
 * which it supports) is asked for the time in the event's zone, and this is the least of one.
 */
class ZonedMoment extends Date {
  readonly internal: Date;
  /** The same instant shifted by the zone's offset: its UTC fields are the zone's wall clock. */
  private readonly wall: Date;

  constructor(
    ms: number,
    readonly timeZone: string | undefined,
  ) {
    super(ms);
    this.internal = new Date(ms);
    this.wall = new Date(timeZone === undefined ? ms : ms + offsetMs(timeZone, ms));
  }

  withTimeZone(zone?: string | null): ZonedMoment {
    return new ZonedMoment(this.getTime(), zone ?? undefined);
  }

  tzComponents() {
    return { year: this.getFullYear(), month: this.getMonth(), date: this.getDate(), hours: this.getHours(), minutes: this.getMinutes(), seconds: this.getSeconds() };
  }

  override getFullYear(): number {
    return this.wall.getUTCFullYear();
  }
  override getMonth(): number {
    return this.wall.getUTCMonth();
  }
  override getDate(): number {
    return this.wall.getUTCDate();
  }
  override getHours(): number {
    return this.wall.getUTCHours();
  }
  override getMinutes(): number {
    return this.wall.getUTCMinutes();
  }
  override getSeconds(): number {
    return this.wall.getUTCSeconds();
  }
}

/**
 * A VCALENDAR of `events` with their times in `timeZone` (TZID and its VTIMEZONE); in UTC when
 * the library has no rules for the zone. DTSTAMP is always UTC.
 */
export function icsCalendar(events: readonly IcsEvent[], options: { timeZone: string; name: string }): string {
  const block = zoneBlockOf(options.timeZone);
  const calendar = ical({
    prodId: { company: 'groupadmin', product: 'groupadmin', language: 'EN' },
    name: options.name,
    // No calendar-wide zone (its name would make DTSTAMP local time): each event names its own,
    // and the generator adds its VTIMEZONE.
    timezone: { name: null, generator: () => block?.vtimezone ?? null },
  });
  for (const event of events) {
    const zoned = (moment: Date) => (block ? new ZonedMoment(moment.getTime(), block.tzid) : moment);
    calendar.createEvent({
      id: event.uid,
      sequence: event.sequence,
      stamp: event.stamp,
      start: zoned(event.start),
      end: zoned(event.end),
      ...(block ? { timezone: block.tzid } : {}),
      summary: event.summary,
      ...(event.location === null ? {} : { location: event.location }),
      ...(event.description === null ? {} : { description: event.description }),
      url: event.url,
    });
  }
  return calendar.toString();
}
