import { client } from './session.js';

/**
 * The accounts, mail status and messages endpoints, through the app's one client (its XSRF header,
 * its patience with the rate limit). Their shapes are written here by hand until the typed client
 * is generated from the API's description again; a page still never calls fetch itself.
 */
type Init = {
  body?: unknown;
  params?: { path?: Record<string, number>; query?: Record<string, string | number | boolean> };
  headers?: Record<string, string>;
};
type Call = (path: string, init?: Init) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
const api = client.api as unknown as { GET: Call; POST: Call; DELETE: Call };

/** An answer as openapi-fetch gives it, with `data` of a known shape. */
export type Answer<T> = { data?: T; error?: unknown; response: Response };
const typed = <T>(answer: Promise<{ data?: unknown; error?: unknown; response: Response }>) => answer as Promise<Answer<T>>;

export type GuardiansChoice = 'include' | 'only' | 'none';
export type MessageState = 'queued' | 'sent' | 'failed' | 'unreachable';
export type ParticipationState = 'pending' | 'accepted' | 'waitlisted' | 'rejected' | 'cancelled';

export type MessageTarget =
  | { group_id: number; below: boolean; role_types: string[] | null; guardians: GuardiansChoice }
  | { event_id: number; states: ParticipationState[]; guardians: GuardiansChoice };

export interface Counts {
  recipients: number;
  queued: number;
  sent: number;
  failed: number;
  unreachable: number;
}

export interface Message {
  id: number;
  subject: string;
  body: string;
  sender: { id: number; firstname: string; lastname: string } | null;
  to: MessageTarget;
  created_at: string;
  counts: Counts;
}

export interface Recipient {
  person_id: number | null;
  name: string;
  email: string | null;
  state: MessageState;
  error: string | null;
}

export interface EmailStatus {
  state: 'ok' | 'failing';
  refusals: number;
  last_error: string | null;
  since: string | null;
}

/** The session forms answer like POST /session: the app is signed in. */
type SignedIn = { success: true; message: string; data: { user: { id: number; username: string } } };

/**
 * The forms of a link from a mail. The session forms need the XSRF-TOKEN cookie first: the client
 * repeats it in `X-XSRF-TOKEN`, and the API then answers with a session cookie, as a sign-in does.
 */
export const accounts = {
  forgot: (email: string) => typed<{ success: true; message: string }>(api.POST('/password/forgot', { body: { email } })),
  async reset(body: { token: string; password: string; password_confirmation: string }) {
    await api.GET('/csrf-cookie');
    return typed<SignedIn>(api.POST('/password/reset', { body }));
  },
  /**
   * Whether a reset link still works, asked in the token form (no cookie, no XSRF header) with the
   * token alone: a session this browser holds is not ended (the session form would end it), and
   * the token is not used. A dead token is refused on `token` alone, a live one on the password.
   */
  async checkResetLink(token: string): Promise<Answer<never>> {
    const response = await fetch(`${location.origin}/api/password/reset`, {
      method: 'POST',
      credentials: 'omit',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    return { error: await response.json().catch(() => undefined), response };
  },
  checkInvitation: (token: string) =>
    typed<{ data: { firstname: string; lastname: string; tenant: { name: string }; inviter: { firstname: string; lastname: string } | null } }>(
      api.POST('/invitation/check', { body: { token } }),
    ),
  async acceptInvitation(body: { token: string; username: string; password: string; password_confirmation: string }) {
    await api.GET('/csrf-cookie');
    return typed<SignedIn>(api.POST('/invitation/accept', { body }));
  },
  /** `key`: one Idempotency-Key per invitation the reader asks for, so that a retry mails once. */
  invite: (personId: number, key: string) =>
    typed<{ data: { invitation: { person_id: number; expires_at: string } } }>(
      api.POST('/people/{id}/invitation', { params: { path: { id: personId } }, headers: { 'Idempotency-Key': key } }),
    ),
  emailStatus: (personId: number) => typed<{ data: { email_status: EmailStatus } }>(api.GET('/people/{id}/email-status', { params: { path: { id: personId } } })),
  clearEmailStatus: (personId: number) => typed<never>(api.DELETE('/people/{id}/email-status', { params: { path: { id: personId } } })),
};

export type MessageBody = {
  subject: string;
  body: string;
  to: { group_id: number; below: boolean; role_types?: string[]; guardians: GuardiansChoice } | { event_id: number; states: ParticipationState[]; guardians: GuardiansChoice };
};

export const messages = {
  /** `key`: one Idempotency-Key per message written: a retry after a lost answer sends it once. */
  send: (body: MessageBody, key: string) => typed<{ data: { message: Message } }>(api.POST('/messages', { body, headers: { 'Idempotency-Key': key } })),
  /** One page of 50, newest first: of a group, of an event, or (neither) the reader's own. */
  list: (query: { group_id?: number; event_id?: number; cursor?: string }) =>
    typed<{ data: { messages: Message[]; next_cursor: string | null } }>(
      api.GET('/messages', { params: { query: { limit: 50, ...Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) } } }),
    ),
  get: (id: number) => typed<{ data: { message: Message & { recipients: Recipient[] } } }>(api.GET('/messages/{id}', { params: { path: { id } } })),
};

/** The longest body the API takes (characters). */
export const BODY_LIMIT = 20_000;
export const SUBJECT_LIMIT = 255;
