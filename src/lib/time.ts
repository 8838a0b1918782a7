/** A calendar day as `YYYY-MM-DD` (in the tenant's time zone): such strings compare in date order. */
export type Day = string;

/** The database form of a moment: UTC text with microseconds, e.g. "2026-11-21 09:30:05.123000". */
export function toDbTimestamp(moment: Date): string {
  return `${moment.toISOString().slice(0, 23).replace('T', ' ')}000`;
}

const STORED_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(?:Z|[+-]00(?::?00)?)?$/;

/**
 * The API form: "2026-11-21T09:30:05.123000Z", always six fraction digits. Accepts what either
 * dialect hands back (SQLite text, PostgreSQL text with trimmed fractions, or a Date).
 */
export function toApiTimestamp(value: string | Date): string {
  if (value instanceof Date) return isoWithMicroseconds(value);
  // The form this service stores: no captures to allocate (a page of people reads a hundred).
  if (STORED_TIMESTAMP.test(value)) return [value.slice(0, 10), 'T', value.slice(11), 'Z'].join('');
  const match = TIMESTAMP.exec(value);
  if (!match) return isoWithMicroseconds(new Date(value));
  const fraction = (match[3] ?? '').padEnd(6, '0').slice(0, 6);
  // join, not a template literal: V8 keeps a template's result as a tree of its pieces (~210
  // bytes), join makes one flat string (~50). These are kept for every remembered token.
  return [match[1], 'T', match[2], '.', fraction, 'Z'].join('');
}

const isoWithMicroseconds = (moment: Date): string => [moment.toISOString().slice(0, 23), '000Z'].join('');

export const toApiTimestampOrNull = (value: string | Date | null): string | null =>
  value === null ? null : toApiTimestamp(value);

/** Any timestamp text another database gives back (see toApiTimestamp) in the stored form. */
export const normaliseDbTimestamp = (value: string | Date): string => toApiTimestamp(value).replace('T', ' ').slice(0, -1);

/**
 * The canonical IANA name of a time zone ("europe/zurich" -> "Europe/Zurich"), or null when there
 * is no such zone. Offsets ("+01:00") are not names: a tenant's "today" must follow summer time.
 */
export function canonicalTimeZone(zone: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
