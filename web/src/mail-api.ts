import type { paths } from 'groupadmin/client';
import { client } from './session.js';

/**
 * The accounts, mail status and messages endpoints, through the app's one client (its XSRF header,
 * its patience with the rate limit), with the shapes of the API's description. A page never calls
 * fetch itself.
 */
const api = client.api;

/** An answer as openapi-fetch gives it. */
export type Answer<T> = { data?: T; error?: unknown; response: Response };

type JsonOf<Answer> = Answer extends { content: { 'application/json': infer Body } } ? Body : never;
export type FullMessage = JsonOf<paths['/messages/{id}']['get']['responses'][200]>['data']['message'];
export type Message = Omit<FullMessage, 'recipients'>;
export type Recipient = FullMessage['recipients'][number];
export type Counts = Message['counts'];
export type MessageState = Recipient['state'];
export type MessageTarget = Message['to'];
export type GuardiansChoice = MessageTarget['guardians'];
export type ParticipationState = Extract<MessageTarget, { event_id: number }>['states'][number];
export type EmailStatus = JsonOf<paths['/people/{id}/email-status']['get']['responses'][200]>['data']['email_status'];
export type MessageBody = NonNullable<paths['/messages']['post']['requestBody']>['content']['application/json'];

/**
 * The forms of a link from a mail. The session forms need the XSRF-TOKEN cookie first: the client
 * repeats it in `X-XSRF-TOKEN`, and the API then answers with a session cookie, as a sign-in does.
 */
export const accounts = {
  forgot: (email: string) => api.POST('/password/forgot', { body: { email } }),
  async reset(body: { token: string; password: string; password_confirmation: string }) {
    await api.GET('/csrf-cookie');
    return api.POST('/password/reset', { body });
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
  checkInvitation: (token: string) => api.POST('/invitation/check', { body: { token } }),
  async acceptInvitation(body: { token: string; username: string; password: string; password_confirmation: string }) {
    await api.GET('/csrf-cookie');
    return api.POST('/invitation/accept', { body });
  },
  /** `key`: one Idempotency-Key per invitation the reader asks for, so that a retry mails once. */
  invite: (personId: number, key: string) => api.POST('/people/{id}/invitation', { params: { path: { id: personId } }, headers: { 'Idempotency-Key': key } }),
  emailStatus: (personId: number) => api.GET('/people/{id}/email-status', { params: { path: { id: personId } } }),
  clearEmailStatus: (personId: number) => api.DELETE('/people/{id}/email-status', { params: { path: { id: personId } } }),
};

export const messages = {
  /** `key`: one Idempotency-Key per message written: a retry after a lost answer sends it once. */
  send: (body: MessageBody, key: string) => api.POST('/messages', { body, headers: { 'Idempotency-Key': key } }),
  /** One page of 50, newest first: of a group, of an event, or (neither) the reader's own. */
  list: (query: { group_id?: number; event_id?: number; cursor?: string }) => api.GET('/messages', { params: { query: { limit: 50, ...query } } }),
  get: (id: number) => api.GET('/messages/{id}', { params: { path: { id } } }),
};

/** The longest body the API takes (characters). */
export const BODY_LIMIT = 20_000;
export const SUBJECT_LIMIT = 255;
