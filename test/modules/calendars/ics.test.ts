import { describe, expect, it } from 'vitest';
import { icsCalendar, type IcsEvent } from '../../../src/modules/calendars/ics.js';
import { checkLines, parseCalendar } from './parse.js';

const base: IcsEvent = {
  uid: 'event-1@demo.example.org',
  stamp: new Date('2026-01-02T03:04:05.678Z'),
  start: new Date('2026-03-28T09:00:00Z'),
  end: new Date('2026-03-29T15:00:00Z'),
  summary: 'Weekend camp',
  location: null,
  description: null,
  url: 'https://demo.example.org/#/events/1',
  sequence: 0,
};

describe('the iCalendar writer', () => {
  it("writes times in the tenant's zone with TZID and its VTIMEZONE, right on both sides of a change to summer time", () => {
    const text = icsCalendar([base], { timeZone: 'Europe/Zurich', name: 'Demo' });
    checkLines(text);
    // Saturday 10:00 CET (UTC+1), Sunday 17:00 CEST (UTC+2): the clocks went forward in between.
    expect(text).toContain('\r\nDTSTART;TZID=Europe/Zurich:20260328T100000\r\n');
    expect(text).toContain('\r\nDTEND;TZID=Europe/Zurich:20260329T170000\r\n');
    expect(text).toContain('\r\nDTSTAMP:20260102T030405Z\r\n');
    const { calendar, events } = parseCalendar(text);
    expect(calendar.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid'))).toEqual(['Europe/Zurich']);
    const [event] = events;
    expect(event!.startDate.zone.tzid).toBe('Europe/Zurich');
    expect(event!.startDate.toJSDate().toISOString()).toBe('2026-03-28T09:00:00.000Z');
    expect(event!.endDate.toJSDate().toISOString()).toBe('2026-03-29T15:00:00.000Z');
    // And back to winter time in October.
    const autumn = icsCalendar([{ ...base, start: new Date('2026-10-24T22:30:00Z'), end: new Date('2026-10-25T12:00:00Z') }], { timeZone: 'Europe/Zurich', name: 'Demo' });
    expect(autumn).toContain('DTSTART;TZID=Europe/Zurich:20261025T003000');
    expect(autumn).toContain('DTEND;TZID=Europe/Zurich:20261025T130000');
    const [later] = parseCalendar(autumn).events;
    expect(later!.startDate.toJSDate().toISOString()).toBe('2026-10-24T22:30:00.000Z');
    expect(later!.endDate.toJSDate().toISOString()).toBe('2026-10-25T12:00:00.000Z');
  });

  it('does not depend on the zone of the server', () => {
    const zone = process.env.TZ;
    try {
      process.env.TZ = 'America/Los_Angeles';
      expect(icsCalendar([base], { timeZone: 'Europe/Zurich', name: 'Demo' })).toContain('DTSTART;TZID=Europe/Zurich:20260328T100000');
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('names UTC by the TZID of its VTIMEZONE', () => {
    const text = icsCalendar([base], { timeZone: 'UTC', name: 'Demo' });
    expect(text).toContain('DTSTART;TZID=Etc/UTC:20260328T090000');
    const { calendar, events } = parseCalendar(text);
    expect(calendar.getFirstSubcomponent('vtimezone')!.getFirstPropertyValue('tzid')).toBe('Etc/UTC');
    expect(events[0]!.startDate.toJSDate().toISOString()).toBe('2026-03-28T09:00:00.000Z');
  });

  it('escapes commas, semicolons, backslashes and line breaks, and folds long lines without cutting a character', () => {
    const summary = 'Camp, lake; "big" \\ fun';
    const description = `Bring: tent, mat; torch\\lamp\r\nSecond line\n${'Grüezi 😀 '.repeat(20)}`;
    const text = icsCalendar([{ ...base, summary, location: 'Hut; Alp, Valley', description, sequence: 5 }], { timeZone: 'Europe/Zurich', name: 'Demo' });
    checkLines(text);
    expect(text).toContain('\r\nSUMMARY:Camp\\, lake\\; "big" \\\\ fun\r\n');
    expect(text).toContain('\r\nLOCATION:Hut\\; Alp\\, Valley\r\n');
    expect(text).toMatch(/\r\nDESCRIPTION:Bring: tent\\, mat\\; torch\\\\lamp\\nSecond line\\nGr/);
    expect(text.split('\r\n').some((line) => line.startsWith(' '))).toBe(true);
    for (const line of text.split('\r\n')) expect(line).not.toMatch(/[\ud800-\udbff]$|^ ?[\udc00-\udfff]/);
    const [event] = parseCalendar(text).events;
    expect(event!.summary).toBe(summary);
    expect(event!.location).toBe('Hut; Alp, Valley');
    expect(event!.description).toBe(description.replace('\r\n', '\n'));
    expect(event!.sequence).toBe(5);
    expect(event!.uid).toBe('event-1@demo.example.org');
    expect(event!.component.getFirstPropertyValue('url')).toBe('https://demo.example.org/#/events/1');
  });

  it('leaves out LOCATION and DESCRIPTION when there are none, and writes an empty calendar without events', () => {
    const text = icsCalendar([base], { timeZone: 'Europe/Zurich', name: 'Demo' });
    expect(text).not.toMatch(/\r\n(LOCATION|DESCRIPTION)[:;]/);
    const empty = icsCalendar([], { timeZone: 'Europe/Zurich', name: 'Demo' });
    expect(empty.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n')).toBe(true);
    expect(empty.endsWith('END:VCALENDAR')).toBe(true);
    expect(parseCalendar(empty).events).toEqual([]);
  });
});
