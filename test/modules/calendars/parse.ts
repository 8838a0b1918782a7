import ICAL from 'ical.js';
import { expect } from 'vitest';

/** The file parsed by ical.js, its time zones registered so that times convert to UTC. */
export function parseCalendar(text: string): { calendar: ICAL.Component; events: ICAL.Event[] } {
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  return { calendar, events: calendar.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent)) };
}

/** Every physical line ends with CRLF and is at most 75 octets. */
export function checkLines(text: string): void {
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  for (const line of text.split('\r\n')) expect(Buffer.byteLength(line, 'utf8'), line).toBeLessThanOrEqual(75);
}
