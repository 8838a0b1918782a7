import { createClient, type GroupadminClient } from 'groupadmin/client';

/**
 * The one API client of the app. It signs in with a session cookie (POST /session) that no
 * script can read: a reload or a second tab stays signed in, and nothing of the session is kept
 * in localStorage, sessionStorage or IndexedDB (docs/api/authentication-and-tokens.md).
 */
export const client: GroupadminClient = createClient({ baseUrl: `${location.origin}/api` });

/** What an answer that went wrong means for the page showing it. */
export type Trouble =
  | { kind: 'unauthenticated' }
  | { kind: 'rate-limited'; retryAfter: number }
  /** The API said no, and why (403, 404, 409, 412, 422): its message is shown. */
  | { kind: 'refused'; message: string }
  | { kind: 'failed'; status: number };

/** Reads a failed answer: 401 ends the session, 429 says when to try again, a refusal says why. */
export function troubleOf(response: Response, error?: unknown): Trouble {
  if (response.status === 401) return { kind: 'unauthenticated' };
  if (response.status === 429) return { kind: 'rate-limited', retryAfter: Number(response.headers.get('retry-after') ?? '60') };
  const message = (error as { message?: unknown } | undefined)?.message;
  if (response.status < 500 && typeof message === 'string') return { kind: 'refused', message };
  return { kind: 'failed', status: response.status };
}
