import { createClient, type GroupadminClient } from 'groupadmin/client';

/**
 * A key for one action (an Idempotency-Key): random. `crypto.randomUUID` exists only on HTTPS and
 * localhost; a club trying the app over plain HTTP on its own network gets 128 random bits too.
 */
export const newKey = (): string =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');

/** Tries of one request that met the rate limit, before the page hears the 429. */
const MOST_RETRIES = 3;
/** The longest wait for the rate limit that the app sits out by itself (the per-minute limits). */
const LONGEST_WAIT_SECONDS = 60;

/** The requests sitting out the rate limit now: when each tries again (ms since the epoch), or 0 while it does. */
const waits = new Map<object, number>();
const listeners = new Set<(seconds: number | null) => void>();

/** Tells every listener how long the longest wait still is (0: trying again now), or null when nothing waits. */
function tellWaiting(): void {
  const latest = Math.max(...waits.values());
  const seconds = waits.size === 0 ? null : latest === 0 ? 0 : Math.max(1, Math.ceil((latest - Date.now()) / 1000));
  for (const listener of listeners) listener(seconds);
}

/**
 * Tells `listener` when requests wait for the rate limit (the seconds until the last of them tries
 * again, 0 while it does), and when none does any more (null); returns the way to stop listening.
 */
export function whenWaiting(listener: (seconds: number | null) => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/**
 * fetch that waits out a 429 and tries again, saying so until the request is answered: the rate
 * limit refuses a request before any of it is done, and every POST carries an `Idempotency-Key`
 * (the service ignores it where an answer holds a secret, such as the sign-in), so trying again
 * never acts twice, and a page never mistakes a 429 for missing data. What was typed stays in its
 * form meanwhile.
 */
const patientFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  // Every POST that may be tried again carries a key of its own: a repeat is answered once.
  if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', newKey());
  const wait = {};
  try {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(request.clone());
      if (response.status !== 429 || attempt >= MOST_RETRIES) return response;
      const seconds = Math.max(1, Number(response.headers.get('retry-after')) || 1);
      // A wait longer than a person watches (a sender's hourly messages, the tenant's daily mail) is the page's to say.
      if (seconds > LONGEST_WAIT_SECONDS) return response;
      waits.set(wait, Date.now() + seconds * 1000);
      tellWaiting();
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      waits.set(wait, 0);
      tellWaiting();
      // A 429 is kept under its Idempotency-Key (a limit counted inside the action answers after the
      // key is claimed): the same key would only bring the refusal back. Nothing was done, so a new one is safe.
      if (request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', newKey());
    }
  } finally {
    if (waits.delete(wait)) tellWaiting();
  }
};

/**
 * The one API client of the app. It signs in with a session cookie (POST /session) that no
 * script can read: a reload or a second tab stays signed in, and nothing of the session is kept
 * in localStorage, sessionStorage or IndexedDB (docs/api/authentication-and-tokens.md).
 */
export const client: GroupadminClient = createClient({ baseUrl: `${location.origin}/api`, fetch: patientFetch });

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
