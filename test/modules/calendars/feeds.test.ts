import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateUser, deactivateUser } from '../../../src/modules/auth/accounts.js';
import { setTenantLocale, setTenantTimezone } from '../../../src/modules/tenants/rules.js';
import { buildTestApp, hostOf, type TestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';
import { capturingLogger } from '../../helpers/logs.js';
import { checkLines, parseCalendar } from './parse.js';

const NOT_FOUND = { success: false, message: 'Calendar not found.' };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET of a feed address as a calendar app sends it: no token, only the address. */
const fetchFeed = (t: TestApp, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
  t.app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search, headers: { host: hostOf('demo'), ...headers } });

async function makeFeed(w: World, who: string): Promise<string> {
  const answer = await w.call(who, 'POST', '/user/calendar');
  expect(answer.statusCode, answer.body).toBe(201);
  return answer.json().data.calendar.url as string;
}

/** Calendar feeds (docs/api/calendars-and-contacts.md). */
describe('calendar feeds', () => {
  let w: World;
  let t: TestApp;
  const events: Record<string, { id: number }> = {};
  let parentFeed: string;

  beforeAll(async () => {
    t = await buildTestApp({ RATE_LIMIT_CALENDAR: '100000' });
    await setTenantTimezone(t.storage, 'demo', 'Europe/Zurich');
    w = await buildWorld(t);
    const event = async (name: string, fields: Record<string, unknown>) => {
      events[name] = await w.event('regionleader', { group_id: w.region, name, ...fields });
    };
    await event('Camp, lake; fun', { starts_at: daysFromNow(20), ends_at: daysFromNow(22), description: 'Bring a torch.\nAnd a mat.', location: 'Hut; Alp, Valley', capacity: 2 });
    await event('Last month', { starts_at: daysFromNow(-10), ends_at: daysFromNow(-9) });
    await event('Long ago', { starts_at: daysFromNow(-40), ends_at: daysFromNow(-39) });
    await event('Far ahead', { starts_at: daysFromNow(600), ends_at: daysFromNow(601) });
    await event('Closed', { starts_at: daysFromNow(5), ends_at: daysFromNow(5), registration_closes_at: daysFromNow(-1) });
    await event('Full', { starts_at: daysFromNow(30), ends_at: daysFromNow(31), capacity: 1 });
    await event('Spring weekend', { starts_at: '2027-03-27T09:00:00Z', ends_at: '2027-03-28T15:00:00Z' });
    events['Troop B hike'] = await w.event('regionleader', { group_id: w.troopB, name: 'Troop B hike', starts_at: daysFromNow(10), ends_at: daysFromNow(10) });
    events['Other outing'] = await w.event('admin', { group_id: w.other, name: 'Other outing', starts_at: daysFromNow(7), ends_at: daysFromNow(7) });
    // The parent's ward Charlie: registered (by the parent, with notes), and by a manager where registration is closed.
    await w.register('parent', events['Camp, lake; fun']!.id, { person_id: w.ids.child, notes: 'Peanut allergy' });
    for (const name of ['Last month', 'Long ago', 'Far ahead', 'Closed']) await w.register('regionleader', events[name]!.id, { person_id: w.ids.child });
    await w.register('troopleader', events.Full!.id, { person_id: w.ids.troopleader });
    expect((await w.register('parent', events.Full!.id, { person_id: w.ids.child })).state).toBe('waitlisted');
    parentFeed = await makeFeed(w, 'parent');
  }, 90_000);
  afterAll(() => t?.close());

  const feedOf = async (url: string) => {
    const answer = await fetchFeed(t, url);
    expect(answer.statusCode, answer.body).toBe(200);
    return answer;
  };
  const uidOf = (name: string) => `event-${events[name]!.id}@${new URL(t.config.mail.publicUrl.replace('{tenant}', 'demo')).hostname}`;

  it('makes a secret feed address from PUBLIC_URL, and tells whether one exists without giving it again', async () => {
    const base = t.config.mail.publicUrl.replaceAll('{tenant}', 'demo');
    expect(parentFeed).toMatch(new RegExp(`^${base.replace(/[.]/g, '\\.')}/api/calendar/[A-Za-z0-9_-]{43}\\.ics$`));
    const status = await w.call('parent', 'GET', '/user/calendar');
    expect(status.statusCode).toBe(200);
    expect(status.json()).toEqual({ success: true, message: 'success', data: { calendar: { created_at: expect.stringMatching(/Z$/), last_used_at: null } } });
    expect(status.body).not.toContain(new URL(parentFeed).pathname.split('/').at(-1)!.replace('.ics', ''));
    expect((await w.call('outsider', 'GET', '/user/calendar')).json().data).toEqual({ calendar: null });
    // Stored as its hash only.
    const stored = await t.storage.tenantDb('demo').selectFrom('calendar_feeds').select('token').where('person_id', '=', w.ids.parent!).executeTakeFirstOrThrow();
    expect(stored.token).toMatch(/^[0-9a-f]{64}$/);
    expect(parentFeed).not.toContain(stored.token);
  });

  it("lists the ward's registered events and those open to the family, in the window, with first names and states only", async () => {
    const answer = await feedOf(parentFeed);
    expect(answer.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const text = answer.body;
    checkLines(text);
    const { events: parsed } = parseCalendar(text);
    const byUid = new Map(parsed.map((event) => [event.uid, event]));
    // Registered (also waitlisted, also started a while ago, also where registration has closed), and open to the
    // ward (a member below the region) or to the parent (a member of Other); not far ahead, not long ago, not Troop B.
    expect([...byUid.keys()].sort()).toEqual(['Camp, lake; fun', 'Last month', 'Closed', 'Full', 'Spring weekend', 'Other outing'].map(uidOf).sort());
    const camp = byUid.get(uidOf('Camp, lake; fun'))!;
    expect(camp.summary).toBe('Camp, lake; fun');
    expect(camp.location).toBe('Hut; Alp, Valley');
    expect(camp.description).toBe('Bring a torch.\nAnd a mat.\n\nCharlie: accepted');
    expect(camp.component.getFirstPropertyValue('url')).toBe(`${t.config.mail.publicUrl.replace('{tenant}', 'demo')}/#/events/${events['Camp, lake; fun']!.id}`);
    expect(camp.sequence).toBe(0);
    expect(byUid.get(uidOf('Full'))!.description).toBe('Charlie: waitlisted');
    expect(byUid.get(uidOf('Other outing'))!.description).toBeNull();
    // DTSTAMP is the event's updated_at.
    const stored = (await w.call('admin', 'GET', `/events/${events['Camp, lake; fun']!.id}`)).json().data.event;
    expect(camp.component.getFirstPropertyValue('dtstamp')!.toString()).toBe(stored.updated_at.slice(0, 19) + 'Z');
    // No last names, no notes.
    expect(text).not.toContain('Child');
    expect(text).not.toContain('Scout');
    expect(text).not.toContain('Peanut');
  });

  it("writes the times in the tenant's zone with its VTIMEZONE, across a change to summer time", async () => {
    const { calendar, events: parsed } = parseCalendar((await feedOf(parentFeed)).body);
    expect(calendar.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid'))).toEqual(['Europe/Zurich']);
    const spring = parsed.find((event) => event.uid === uidOf('Spring weekend'))!;
    expect(spring.component.getFirstProperty('dtstart')!.getParameter('tzid')).toBe('Europe/Zurich');
    expect(spring.startDate.toString()).toBe('2027-03-27T10:00:00');
    expect(spring.endDate.toString()).toBe('2027-03-28T17:00:00');
    expect(spring.startDate.toJSDate().toISOString()).toBe('2027-03-27T09:00:00.000Z');
    expect(spring.endDate.toJSDate().toISOString()).toBe('2027-03-28T15:00:00.000Z');
  });

  it('keeps UIDs stable and writes SEQUENCE from the stored column', async () => {
    const before = parseCalendar((await feedOf(parentFeed)).body).events.map((event) => event.uid).sort();
    await t.storage.tenantDb('demo').updateTable('events').set({ sequence: 4 }).where('id', '=', events['Camp, lake; fun']!.id).execute();
    const after = parseCalendar((await feedOf(parentFeed)).body).events;
    expect(after.map((event) => event.uid).sort()).toEqual(before);
    expect(after.find((event) => event.uid === uidOf('Camp, lake; fun'))!.sequence).toBe(4);
    // SEQUENCE is not part of the event's JSON.
    expect(Object.keys((await w.call('admin', 'GET', `/events/${events['Camp, lake; fun']!.id}`)).json().data.event)).not.toContain('sequence');
  });

  it('answers an ETag of the content, 304 to If-None-Match, and lets a calendar keep it for a quarter of an hour', async () => {
    const first = await feedOf(parentFeed);
    expect(first.headers['cache-control']).toBe('private, max-age=900');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await feedOf(parentFeed)).headers.etag).toBe(etag);
    const again = await fetchFeed(t, parentFeed, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await fetchFeed(t, parentFeed, { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);
    expect((await fetchFeed(t, parentFeed, { 'if-none-match': '"other"' })).statusCode).toBe(200);
    expect((await w.call('admin', 'PATCH', `/events/${events['Other outing']!.id}`, { description: 'Changed' })).statusCode).toBe(200);
    const changed = await fetchFeed(t, parentFeed, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.body).toContain('DESCRIPTION:Changed');
  });

  it('records the last fetch at most once a minute', async () => {
    const lastUsed = async () => (await w.call('parent', 'GET', '/user/calendar')).json().data.calendar.last_used_at as string | null;
    await feedOf(parentFeed);
    const first = await lastUsed();
    expect(first).toMatch(/Z$/);
    await wait(20);
    await feedOf(parentFeed);
    expect(await lastUsed()).toBe(first);
    // A fetch more than a minute later writes it again.
    const db = t.storage.tenantDb('demo');
    await db.updateTable('calendar_feeds').set({ last_used_at: '2026-01-01 00:00:00.000000' }).where('person_id', '=', w.ids.parent!).execute();
    await feedOf(parentFeed);
    expect(await lastUsed()).not.toBe('2026-01-01T00:00:00.000000Z');
  });

  it('answers 404 "Calendar not found." to an unknown, malformed or over-long token, never 401', async () => {
    const path = new URL(parentFeed).pathname;
    const token = path.split('/').at(-1)!.slice(0, -'.ics'.length);
    const unknown = `A${token.slice(1)}` === token ? `B${token.slice(1)}` : `A${token.slice(1)}`;
    for (const bad of [unknown, 'short', `${token}x`, token.replace(/.$/, '!'), 'a'.repeat(5000), '']) {
      const answer = await t.app.inject({ method: 'GET', url: `/api/calendar/${encodeURIComponent(bad)}.ics`, headers: { host: hostOf('demo') } });
      expect(answer.statusCode, bad.slice(0, 50)).toBe(404);
      expect(answer.json()).toEqual(NOT_FOUND);
    }
    // A bearer token, valid or not, changes nothing.
    for (const authorization of ['Bearer nonsense', `Bearer ${w.tokens.parent}`]) {
      const answer = await t.app.inject({ method: 'GET', url: `/api/calendar/${unknown}.ics`, headers: { host: hostOf('demo'), authorization } });
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toEqual(NOT_FOUND);
    }
    // The address is for its tenant only.
    await t.addTenant('elsewhere');
    const other = await t.app.inject({ method: 'GET', url: path, headers: { host: hostOf('elsewhere') } });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual(NOT_FOUND);
  });

  it('replaces the address with a new one (the old answers 404 at once), and ends it', async () => {
    const old = await makeFeed(w, 'troopleader');
    await feedOf(old);
    const renewed = await makeFeed(w, 'troopleader');
    expect(renewed).not.toBe(old);
    expect((await fetchFeed(t, old)).json()).toEqual(NOT_FOUND);
    await feedOf(renewed);
    const ended = await w.call('troopleader', 'DELETE', '/user/calendar');
    expect(ended.statusCode).toBe(204);
    expect(ended.body).toBe('');
    expect((await fetchFeed(t, renewed)).statusCode).toBe(404);
    expect((await w.call('troopleader', 'GET', '/user/calendar')).json().data).toEqual({ calendar: null });
    expect((await w.call('troopleader', 'DELETE', '/user/calendar')).statusCode).toBe(204);
  });

  it('makes one address of several requests at once (a double click): each is 201, one address works', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => w.call('troopleader', 'POST', '/user/calendar')));
    expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201, 201, 201, 201]);
    const fetched = await Promise.all(answers.map((answer) => fetchFeed(t, answer.json().data.calendar.url)));
    expect(fetched.map((answer) => answer.statusCode).sort()).toEqual([200, 404, 404, 404, 404]);
    const rows = await t.storage.tenantDb('demo').selectFrom('calendar_feeds').select('id').where('person_id', '=', w.ids.troopleader!).execute();
    expect(rows).toHaveLength(1);
    expect((await w.call('troopleader', 'DELETE', '/user/calendar')).statusCode).toBe(204);
  });

  it("answers 404 for a deactivated person's feed, and again 200 once they are active; 404 once they are erased", async () => {
    const feed = await makeFeed(w, 'member');
    const db = t.storage.tenantDb('demo');
    const member = parseCalendar((await feedOf(feed)).body).events.map((event) => event.uid);
    // Open to the member (a member below the region).
    expect(member).toEqual(expect.arrayContaining([uidOf('Camp, lake; fun'), uidOf('Spring weekend')]));
    await deactivateUser(db, w.ids.member!);
    const refused = await fetchFeed(t, feed);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual(NOT_FOUND);
    await activateUser(db, w.ids.member!);
    await feedOf(feed);
    expect((await w.call('admin', 'DELETE', `/people/${w.ids.member}`)).statusCode).toBe(204);
    expect((await fetchFeed(t, feed)).json()).toEqual(NOT_FOUND);
  });

  it('gives someone who only reads the groups an empty calendar', async () => {
    const { events: parsed } = parseCalendar((await feedOf(await makeFeed(w, 'observer'))).body);
    expect(parsed).toEqual([]);
  });

  it('needs events:read for the feed endpoints of the user, takes no body and no Idempotency-Key, and refuses unknown query parameters', async () => {
    const narrow = await w.tokenWith('outsider', ['user:read']);
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      expect((await w.callWith(narrow, method, '/user/calendar')).statusCode).toBe(403);
      expect((await t.app.inject({ method, url: '/api/user/calendar', headers: { host: hostOf('demo'), accept: 'application/json' } })).statusCode).toBe(401);
    }
    const plain = await w.call('outsider', 'POST', '/user/calendar', 'anything at all', { 'content-type': 'text/plain' });
    expect(plain.statusCode, plain.body).toBe(201);
    const key = { 'idempotency-key': 'calendar-1' };
    const first = await w.call('outsider', 'POST', '/user/calendar', undefined, key);
    const second = await w.call('outsider', 'POST', '/user/calendar', undefined, key);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().data.calendar.url).not.toBe(first.json().data.calendar.url);
    expect((await fetchFeed(t, first.json().data.calendar.url)).statusCode).toBe(404);
    expect((await w.call('outsider', 'GET', '/user/calendar?x=1')).statusCode).toBe(422);
    expect((await fetchFeed(t, `${second.json().data.calendar.url}?x=1`)).statusCode).toBe(422);
  });

  it('answers an event the caller sees as an .ics file, and 404 as GET /events/{id} does', async () => {
    const id = events['Camp, lake; fun']!.id;
    const answer = await w.call('parent', 'GET', `/events/${id}.ics`);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="event-${id}.ics"`);
    checkLines(answer.body);
    const [event] = parseCalendar(answer.body).events;
    expect(event!.uid).toBe(uidOf('Camp, lake; fun'));
    expect(event!.description).toBe('Bring a torch.\nAnd a mat.\n\nCharlie: accepted');
    expect(event!.sequence).toBe(4);
    // The JSON form is unchanged beside it.
    expect((await w.call('parent', 'GET', `/events/${id}`)).json().data.event.id).toBe(id);
    const hidden = await w.call('outsider', 'GET', `/events/${events['Troop B hike']!.id}.ics`);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual({ success: false, message: 'Event not found.' });
    for (const bad of ['999999', 'abc', '0']) expect((await w.call('parent', 'GET', `/events/${bad}.ics`)).json()).toEqual({ success: false, message: 'Event not found.' });
    expect((await w.callWith(await w.tokenWith('parent', ['user:read']), 'GET', `/events/${id}.ics`)).statusCode).toBe(403);
  });

  it("names the states in the tenant's language", async () => {
    await setTenantLocale(t.storage, 'demo', 'de');
    // The tenant's settings are kept for a second.
    await wait(1100);
    const { events: parsed } = parseCalendar((await feedOf(parentFeed)).body);
    expect(parsed.find((event) => event.uid === uidOf('Full'))!.description).toBe('Charlie: auf der Warteliste');
    expect(parsed.find((event) => event.uid === uidOf('Camp, lake; fun'))!.description).toContain('Charlie: angenommen');
    await setTenantLocale(t.storage, 'demo', 'fr');
    await wait(1100);
    expect((await feedOf(parentFeed)).body).toContain('Charlie: accepté');
  });
});

describe('the rate of calendar feeds', () => {
  let t: TestApp;
  let w: World;
  beforeAll(async () => {
    t = await buildTestApp({ RATE_LIMIT_CALENDAR: '3', RATE_LIMIT_UNAUTHENTICATED: '1000' });
    w = await buildWorld(t);
  }, 60_000);
  afterAll(() => t?.close());

  it('counts each feed in its own bucket of RATE_LIMIT_CALENDAR a minute, whatever the address', async () => {
    const feed = await makeFeed(w, 'parent');
    const other = await makeFeed(w, 'member');
    for (let i = 1; i <= 3; i++) {
      const answer = await fetchFeed(t, feed, { 'x-forwarded-for': `10.0.0.${i}` });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['x-ratelimit-limit']).toBe('3');
      expect(answer.headers['x-ratelimit-remaining']).toBe(String(3 - i));
    }
    const refused = await fetchFeed(t, feed);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another feed, and the API, are not touched.
    expect((await fetchFeed(t, other)).statusCode).toBe(200);
    expect((await w.call('parent', 'GET', '/user/calendar')).statusCode).toBe(200);
  });

  it('counts an unknown token against the client address, as unauthenticated', async () => {
    const answer = await t.app.inject({ method: 'GET', url: `/api/calendar/${'x'.repeat(43)}.ics`, headers: { host: hostOf('demo') } });
    expect(answer.statusCode).toBe(404);
    expect(answer.headers['x-ratelimit-limit']).toBe('1000');
  });
});

describe('an unknown feed token and the address bucket', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ RATE_LIMIT_UNAUTHENTICATED: '2' });
  });
  afterAll(() => t?.close());

  it('is 429 once the address has used its unauthenticated requests', async () => {
    const get = () => t.app.inject({ method: 'GET', url: `/api/calendar/${'y'.repeat(43)}.ics`, headers: { host: hostOf('demo') } });
    expect((await get()).statusCode).toBe(404);
    expect((await get()).statusCode).toBe(404);
    const refused = await get();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ message: 'Too Many Attempts.' });
  });
});

describe('request logs of calendar feeds', () => {
  it('show /api/calendar/[token].ics, never the token', async () => {
    const capture = capturingLogger();
    const t = await buildTestApp({ LOG_LEVEL: 'info' }, { logger: capture.logger });
    try {
      const w = await buildWorld(t);
      const feed = await makeFeed(w, 'parent');
      const token = new URL(feed).pathname.split('/').at(-1)!.slice(0, -'.ics'.length);
      expect((await fetchFeed(t, feed)).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: `/api/%63alendar/${token}.ics`, headers: { host: hostOf('demo') } })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: `/api/calendar/${token}`, headers: { host: hostOf('demo') } })).statusCode).toBe(404);
      await t.app.inject({ method: 'GET', url: `/api/calendar/${token}.ics`, headers: { host: hostOf('demo'), 'if-none-match': '"x"' } });
      // Addresses that no route takes still carry the token: escaped, doubled slashes, a stray `%`.
      for (const url of [`/api/%63alendar/${token}`, `/api//calendar/${token}.ics`, `/api/%63alendar/${token}.ics%`, `/API/%2F%43alendar/${token}`]) {
        expect((await t.app.inject({ method: 'GET', url, headers: { host: hostOf('demo') } })).statusCode, url).toBe(404);
      }
      await t.app.close();
      expect(capture.text()).not.toContain(token);
      const paths = capture.lines().filter((line) => line.msg === 'request' && (line.route === '/api/calendar/:token.ics' || String(line.path).startsWith('/api/calendar/'))).map((line) => line.path);
      expect(paths.length).toBeGreaterThanOrEqual(8);
      expect(new Set(paths)).toEqual(new Set(['/api/calendar/[token].ics']));
    } finally {
      await t.close();
    }
  }, 60_000);
});
