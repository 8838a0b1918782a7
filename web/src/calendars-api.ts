import { client } from './session.js';

/**
 * Calendar feeds and contact files, through the app's one client (its XSRF header, its patience
 * with the rate limit). A page never calls fetch itself.
 */
type Call = (path: string, init?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
const api = client.api as unknown as { GET: Call };

export type FeedStatus = { created_at: string; last_used_at: string | null } | null;

export const calendarFeed = {
  /** Whether the reader has a feed (never its address again). */
  status: () => client.api.GET('/user/calendar'),
  /** A new address, replacing any earlier one (whose address answers 404 at once): shown this once. */
  create: () => client.api.POST('/user/calendar'),
  /** Ends the feed; 204 also when there is none. */
  end: () => client.api.DELETE('/user/calendar'),
};

/** A person's card (`GET /people/{id}` asked for `text/vcard`), as text. */
export const personCard = (id: number) =>
  api.GET('/people/{id}', { params: { path: { id } }, headers: { Accept: 'text/vcard' }, parseAs: 'text' }) as Promise<{ data?: string; error?: unknown; response: Response }>;
