import { createHash, randomBytes } from 'node:crypto';
import type { EventRow, TenantDb, UserRow } from '../../db/types.js';
import type { SortKey } from '../../http/paging.js';
import { toApiTimestamp, toApiTimestampOrNull, toDbTimestamp, type Day } from '../../lib/time.js';
import { eventSortKey, listAgendaEvents } from '../events/rules.js';
import { tenantAppUrl } from '../mail/settings.js';
import { familyParticipations } from '../participations/rules.js';
import { registrationOpen } from '../participations/who-may-register.js';
import { findPerson, listWards } from '../people/rules.js';
import { groupIdsOnPath } from '../permissions/levels.js';
import { activeGroupPathsByPerson } from '../permissions/rules.js';
import type { Locale } from '../tenants/schemas.js';
import type { IcsEvent } from './ics.js';
import { deleteFeedOfPerson, findFeedByToken, findFeedOfPerson, replaceFeed, touchFeed } from './queries.js';

// A person's calendar feed: a secret address that a phone's calendar fetches by itself, with the
// events of the person's family (docs/api/calendars-and-contacts.md). The address is the only
// credential, so it is made like a password-reset token and stored only as its sha256.

/** 32 random bytes, base64url without padding: 43 characters. */
const TOKEN_BYTES = 32;
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;
/** A feed's last_used_at is written at most this often: calendars fetch every few minutes. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const WINDOW_BACK_DAYS = 30;
const WINDOW_AHEAD_MONTHS = 18;
/** Events read per statement while a feed is gathered. */
const PAGE_ROWS = 500;
const DAY_MS = 86_400_000;
const LIVE_STATES = new Set(['pending', 'accepted', 'waitlisted']);

export type LiveState = 'pending' | 'accepted' | 'waitlisted';

/** The states as DESCRIPTION names them, in the tenant's language (in English, the API's state names). */
const STATE_WORDS: Record<Locale, Record<LiveState, string>> = {
  en: { pending: 'pending', accepted: 'accepted', waitlisted: 'waitlisted' },
  de: { pending: 'offen', accepted: 'angenommen', waitlisted: 'auf der Warteliste' },
  fr: { pending: 'à confirmer', accepted: 'accepté', waitlisted: "sur liste d'attente" },
};

export const hashFeedToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The address of a feed: `<PUBLIC_URL of the tenant>/api/calendar/<token>.ics`. */
export const feedUrl = (publicUrl: string, tenant: string, token: string): string => `${tenantAppUrl({ publicUrl }, tenant)}/api/calendar/${token}.ics`;

/** A new feed for the person, replacing any earlier one; the plain token (never stored). */
export async function createFeed(db: TenantDb, personId: number, now: Date): Promise<string> {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  await replaceFeed(db, personId, hashFeedToken(token), toDbTimestamp(now));
  return token;
}

/** Whether the person has a feed: when it was made and last fetched (never its address). */
export async function feedOf(db: TenantDb, personId: number): Promise<{ created_at: string; last_used_at: string | null } | null> {
  const feed = await findFeedOfPerson(db, personId);
  return feed ? { created_at: toApiTimestamp(feed.created_at), last_used_at: toApiTimestampOrNull(feed.last_used_at) } : null;
}

export const endFeed = (db: TenantDb, personId: number): Promise<void> => deleteFeedOfPerson(db, personId);

export interface ResolvedFeed {
  id: number;
  personId: number;
  tokenHash: string;
  lastUsedAt: string | null;
}

/**
 * The feed a token opens, or null: for a token of the wrong form (never hashed, whatever its
 * length), an unknown one, and that of a person who is deactivated or erased. The lookup is by
 * the hash, so the comparison takes no time that depends on the secret.
 */
export async function resolveFeed(db: TenantDb, token: string): Promise<ResolvedFeed | null> {
  if (!TOKEN_FORM.test(token)) return null;
  const tokenHash = hashFeedToken(token);
  const feed = await findFeedByToken(db, tokenHash);
  if (!feed || !feed.is_active) return null;
  return { id: Number(feed.id), personId: Number(feed.person_id), tokenHash, lastUsedAt: feed.last_used_at };
}

/** Records a fetch of the feed, at most once a minute (the statement checks again, for other instances). */
export async function recordFeedUse(db: TenantDb, feed: ResolvedFeed, now: Date): Promise<void> {
  const notBefore = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS);
  if (feed.lastUsedAt !== null && new Date(toApiTimestamp(feed.lastUsedAt)) >= notBefore) return;
  await touchFeed(db, feed.id, toDbTimestamp(now), toDbTimestamp(notBefore));
}

/** An event with the family's live registrations in it, by first name, in name order. */
export interface FamilyEvent {
  event: EventRow;
  family: { firstname: string; state: LiveState }[];
}

/** People in name order: last name, first name (ignoring case and accents), then as written, then id. */
function byName(a: UserRow, b: UserRow): number {
  const keys = (p: UserRow) => [p.lastname_key, p.firstname_key, p.lastname, p.firstname] as const;
  const [x, y] = [keys(a), keys(b)];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return Number(a.id) - Number(b.id);
}

/** The person and their wards, in name order. */
async function familyOf(db: TenantDb, personId: number): Promise<UserRow[]> {
  const [person, wards] = await Promise.all([findPerson(db, personId), listWards(db, personId)]);
  return [...(person ? [person] : []), ...wards].sort(byName);
}

/** The family's live participations in these events, by event, in the family's order. */
async function liveStatesByEvent(db: TenantDb, eventIds: readonly number[], family: readonly UserRow[]): Promise<Map<number, FamilyEvent['family']>> {
  const rank = new Map(family.map((person, index) => [Number(person.id), index]));
  const rows = (await familyParticipations(db, eventIds, [...rank.keys()]))
    .filter((row) => LIVE_STATES.has(row.state))
    .sort((a, b) => rank.get(Number(a.person_id))! - rank.get(Number(b.person_id))! || Number(a.id) - Number(b.id));
  const byEvent = new Map<number, FamilyEvent['family']>();
  for (const row of rows) {
    const person = family[rank.get(Number(row.person_id))!]!;
    const list = byEvent.get(Number(row.event_id)) ?? [];
    list.push({ firstname: person.firstname, state: row.state as LiveState });
    byEvent.set(Number(row.event_id), list);
  }
  return byEvent;
}

/**
 * The events of a person's feed: those the person or a ward is registered for (pending, accepted,
 * waitlisted), and those open for registration now to one of them (an active membership on `day`
 * in the event's group or a group below it, and the registration window open), overlapping
 * [now - 30 days, now + 18 months], by start. The agenda's selection (events module) read page by
 * page, then the family's states: a few statements, whatever the number of events.
 */
export async function feedEvents(db: TenantDb, personId: number, day: Day, now: Date): Promise<FamilyEvent[]> {
  const family = await familyOf(db, personId);
  const personIds = family.map((person) => Number(person.id));
  const paths = await activeGroupPathsByPerson(db, personIds, day);
  const openGroupIds = new Set([...paths.values()].flat().flatMap(groupIdsOnPath));
  const ahead = new Date(now);
  ahead.setUTCMonth(ahead.getUTCMonth() + WINDOW_AHEAD_MONTHS);
  const selection = {
    personIds,
    openGroupIds: [...openGroupIds],
    now: toDbTimestamp(now),
    from: toDbTimestamp(new Date(now.getTime() - WINDOW_BACK_DAYS * DAY_MS)),
    to: toDbTimestamp(ahead),
  };
  const found: FamilyEvent[] = [];
  let after: SortKey | null = null;
  for (;;) {
    const rows = await listAgendaEvents(db, selection, after, PAGE_ROWS);
    const page = rows.slice(0, PAGE_ROWS);
    const states = await liveStatesByEvent(db, page.map((event) => Number(event.id)), family);
    for (const event of page) {
      const live = states.get(Number(event.id)) ?? [];
      // The agenda's selection also takes a rejected registration; the feed does not.
      const open = openGroupIds.has(Number(event.group_id)) && registrationOpen(event, selection.now);
      if (live.length > 0 || open) found.push({ event, family: live });
    }
    if (rows.length <= PAGE_ROWS) return found;
    after = eventSortKey(page.at(-1)!);
  }
}

/** One event (one the caller sees) with the caller's family's live registrations in it. */
export async function familyEvent(db: TenantDb, personId: number, event: EventRow): Promise<FamilyEvent> {
  const family = await familyOf(db, personId);
  const states = await liveStatesByEvent(db, [Number(event.id)], family);
  return { event, family: states.get(Number(event.id)) ?? [] };
}

/** Where a tenant's events live: the host for UIDs and the web app for URLs. */
export interface TenantPlace {
  /** The tenant's app address (PUBLIC_URL with its slug), without a trailing slash. */
  appUrl: string;
  locale: Locale;
}

/** The VEVENT of a family's event: only first names and states beside the event's own fields, never notes. */
export function toIcsEvent({ event, family }: FamilyEvent, place: TenantPlace): IcsEvent {
  const id = Number(event.id);
  const words = STATE_WORDS[place.locale];
  const who = family.map((member) => `${member.firstname}: ${words[member.state]}`);
  const description = [event.description, who.length > 0 ? who.join('\n') : null].filter((part): part is string => part !== null && part !== '').join('\n\n');
  return {
    uid: `event-${id}@${new URL(place.appUrl).hostname}`,
    stamp: new Date(toApiTimestamp(event.updated_at)),
    start: new Date(toApiTimestamp(event.starts_at)),
    end: new Date(toApiTimestamp(event.ends_at)),
    summary: event.name,
    location: event.location,
    description: description === '' ? null : description,
    url: `${place.appUrl}/#/events/${id}`,
    // Every read of the whole row has it (db/types.ts).
    sequence: Number(event.sequence),
  };
}

/** A strong ETag of a file's bytes. */
export const contentEtag = (content: string | Buffer): string => `"${createHash('sha256').update(content).digest('base64url')}"`;

/** Whether If-None-Match names `etag` (or is `*`); weak tags compare by their value. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim().replace(/^W\//, '');
    return value === '*' || value === etag;
  });
}
