import createFetchClient, { type Client } from 'openapi-fetch';
import type { operations, paths } from './api-types.js';

export type { paths } from './api-types.js';

export interface ClientOptions {
  /** The tenant's API, e.g. https://acme.groupadmin.example/api */
  baseUrl: string;
  /** A token from an earlier login; login() sets one too. */
  token?: string;
  /**
   * On 429, wait the answer's retry_after seconds and try again, up to this many times.
   * Off (0) unless asked for: a caller may prefer to see the 429.
   */
  retryOn429?: number;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The XSRF-TOKEN cookie's value where there is a document (a browser), else null. */
function xsrfCookie(): string | null {
  const cookies = (globalThis as { document?: { cookie?: string } }).document?.cookie;
  if (!cookies) return null;
  const match = /(?:^|;\s*)XSRF-TOKEN=([^;]*)/.exec(cookies);
  return match ? decodeURIComponent(match[1]!) : null;
}

/**
 * A typed client for the groupadmin API. Every call sends `Accept: application/json` (without it
 * the API answers some errors with 419) and, once there is a token, `Authorization: Bearer ...`.
 * Calls answer openapi-fetch's `{ data, error, response }`: `error` is typed by status.
 */
export function createClient(options: ClientOptions) {
  let token = options.token;
  const baseFetch = options.fetch ?? globalThis.fetch;
  const retries = options.retryOn429 ?? 0;

  const fetchWithRetry = async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      const response = await baseFetch(request.clone());
      if (response.status !== 429 || attempt >= retries) return response;
      const seconds = Number(response.headers.get('retry-after') ?? '1');
      await sleep(Math.max(1, Number.isFinite(seconds) ? seconds : 1) * 1000);
    }
  };

  const api: Client<paths> = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers: { Accept: 'application/json' },
    fetch: fetchWithRetry,
  });
  api.use({
    onRequest({ request }) {
      if (token) request.headers.set('Authorization', `Bearer ${token}`);
      // In a browser signed in with a session cookie, a write repeats the XSRF-TOKEN cookie in a header.
      else if (!SAFE_METHODS.has(request.method)) {
        const xsrf = xsrfCookie();
        if (xsrf !== null) request.headers.set('X-XSRF-TOKEN', xsrf);
      }
      return request;
    },
  });

  return {
    /** The underlying openapi-fetch client, for any endpoint. */
    api,
    get token(): string | undefined {
      return token;
    },
    /** POST /login; on success the token is kept for every later call. */
    async login(username: string, password: string) {
      const result = await api.POST('/login', { body: { username, password } });
      if (result.data) token = result.data.api_key.plainTextToken;
      return result;
    },
    /**
     * In a browser on the tenant's own host: GET /csrf-cookie, then POST /session. The session
     * cookie is HttpOnly, so this client never holds the credential; the browser sends it along.
     */
    async signIn(username: string, password: string, remember = false) {
      await api.GET('/csrf-cookie');
      return api.POST('/session', { body: { username, password, remember } });
    },
    /** DELETE /session: ends the browser's session (its cookie is cleared). */
    signOut: () => api.DELETE('/session'),
    /** GET /user: the current user. */
    user: () => api.GET('/user'),
    /** GET /user/access: who this is, the tenant, the role types, active memberships, permissions, wards and this device's token. */
    access: () => api.GET('/user/access'),
    /** GET /user/agenda: what is next for the caller and their wards. */
    agenda: (query: Query<'getAgenda'> = {}) => api.GET('/user/agenda', { params: { query } }),
    /**
     * GET /tenant: the tenant's slug, name, time zone and language. `tenant.update(body)`: PATCH
     * /tenant, its name, time zone or language (admin on the root).
     */
    tenant: Object.assign(() => api.GET('/tenant'), {
      update: (body: Body<'updateTenant'>) => api.PATCH('/tenant', { body }),
    }),
    /** POST /logout: ends this token. */
    async logout() {
      const result = await api.POST('/logout');
      if (result.response.ok) token = undefined;
      return result;
    },
    tokens: {
      list: () => api.GET('/tokens'),
      create: (body: Body<'createToken'>) => api.POST('/tokens', { body }),
      revoke: (id: number) => api.DELETE('/tokens/{id}', { params: { path: { id } } }),
      revokeAllOthers: () => api.DELETE('/tokens'),
    },
    /** The group tree. */
    groups: {
      list: (query: Query<'listGroups'> = {}) => api.GET('/groups', { params: { query } }),
      get: (id: number) => api.GET('/groups/{id}', { params: { path: { id } } }),
      create: (body: Body<'createGroup'>) => api.POST('/groups', { body }),
      update: (id: number, body: Body<'updateGroup'>, ifMatch?: string) =>
        api.PATCH('/groups/{id}', { params: { path: { id } }, body, ...withIfMatch(ifMatch) }),
      delete: (id: number, ifMatch?: string) => api.DELETE('/groups/{id}', { params: { path: { id } }, ...withIfMatch(ifMatch) }),
      memberships: (id: number, query: Query<'listGroupMemberships'> = {}) =>
        api.GET('/groups/{id}/memberships', { params: { path: { id }, query } }),
      /** The group's members (`read` on the group), each with the memberships the filters select; the first page adds `total`. */
      members: (id: number, query: Omit<Query<'listGroupMembers'>, 'format'> = {}) =>
        json<JsonOf<'listGroupMembers'>>()(api.GET('/groups/{id}/members', { params: { path: { id }, query } })),
      /** The whole members list as a CSV or XLSX file (every page at once). */
      async membersFile(id: number, format: 'csv' | 'xlsx', query: Omit<Query<'listGroupMembers'>, 'format' | 'limit' | 'cursor'> = {}) {
        const result = await api.GET('/groups/{id}/members', { params: { path: { id }, query: { ...query, format } }, parseAs: 'blob' });
        return result as unknown as { data?: Blob; error?: unknown; response: Response };
      },
    },
    /** The catalogue of role types. */
    roleTypes: {
      list: () => api.GET('/role-types'),
      create: (body: Body<'createRoleType'>) => api.POST('/role-types', { body }),
      update: (key: string, body: Body<'updateRoleType'>, ifMatch?: string) =>
        api.PATCH('/role-types/{key}', { params: { path: { key } }, body, ...withIfMatch(ifMatch) }),
      delete: (key: string, ifMatch?: string) => api.DELETE('/role-types/{key}', { params: { path: { key } }, ...withIfMatch(ifMatch) }),
    },
    /** People, their memberships, guardians and the caller's wards. */
    people: {
      list: (query: Query<'listPeople'> = {}) => api.GET('/people', { params: { query } }),
      /** `include`: what a person's page shows besides the person (memberships, guardians, wards, participations, can). The JSON form (the client asks for JSON, never the vCard). */
      get: (id: number, query: Query<'getPerson'> = {}) => json<JsonOf<'getPerson'>>()(api.GET('/people/{id}', { params: { path: { id }, query } })),
      create: (body: Body<'createPerson'>) => api.POST('/people', { body }),
      update: (id: number, body: Body<'updatePerson'>, ifMatch?: string) =>
        api.PATCH('/people/{id}', { params: { path: { id } }, body, ...withIfMatch(ifMatch) }),
      erase: (id: number, ifMatch?: string) => api.DELETE('/people/{id}', { params: { path: { id } }, ...withIfMatch(ifMatch) }),
      memberships: (id: number, query: Query<'listPersonMemberships'> = {}) =>
        api.GET('/people/{id}/memberships', { params: { path: { id }, query } }),
      guardians: (id: number) => api.GET('/people/{id}/guardians', { params: { path: { id } } }),
      addGuardian: (id: number, guardianId: number) =>
        api.POST('/people/{id}/guardians', { params: { path: { id } }, body: { guardian_id: guardianId } }),
      /** Links the tenant's person with this e-mail address as a guardian (a parent the caller may not see yet). */
      addGuardianByEmail: (id: number, email: string) => api.POST('/people/{id}/guardians', { params: { path: { id } }, body: { email } }),
      removeGuardian: (id: number, guardianId: number) =>
        api.DELETE('/people/{id}/guardians/{guardian_id}', { params: { path: { id, guardian_id: guardianId } } }),
      wards: () => api.GET('/user/wards'),
      /** Everything kept about the person, as GET /user/export gives it to them (admin on the root). */
      export: (id: number) => api.GET('/people/{id}/export', { params: { path: { id } } }),
    },
    /** Who holds which role where, and when. */
    memberships: {
      create: (body: SingleForm<Body<'createMembership'>>) => form<{ membership: MembershipItem }>()(api.POST('/memberships', { body })),
      /** The same membership for several people: all or nothing. */
      createMany: (body: BulkForm<Body<'createMembership'>>) => form<{ memberships: MembershipItem[] }>()(api.POST('/memberships', { body })),
      /** Several memberships' label or dates (ending them on a day): all or nothing. */
      updateMany: (body: Body<'updateMemberships'>) => api.PATCH('/memberships', { body }),
      update: (id: number, body: Body<'updateMembership'>, ifMatch?: string) =>
        api.PATCH('/memberships/{id}', { params: { path: { id } }, body, ...withIfMatch(ifMatch) }),
      delete: (id: number, ifMatch?: string) => api.DELETE('/memberships/{id}', { params: { path: { id } }, ...withIfMatch(ifMatch) }),
    },
    /** Events: camps, meetings and courses. */
    events: {
      list: (query: Query<'listEvents'> = {}) => api.GET('/events', { params: { query } }),
      /** The JSON form (the client asks for JSON, never the .ics file). */
      get: (id: number) => json<JsonOf<'getEvent'>>()(api.GET('/events/{id}', { params: { path: { id } } })),
      create: (body: Body<'createEvent'>) => api.POST('/events', { body }),
      update: (id: number, body: Body<'updateEvent'>, ifMatch?: string) =>
        api.PATCH('/events/{id}', { params: { path: { id } }, body, ...withIfMatch(ifMatch) }),
      delete: (id: number, ifMatch?: string) => api.DELETE('/events/{id}', { params: { path: { id } }, ...withIfMatch(ifMatch) }),
      summary: (id: number) => api.GET('/events/{id}/summary', { params: { path: { id } } }),
    },
    /** Registration, the waiting list and the participant lists. */
    participations: {
      register: (eventId: number, body: SingleForm<Body<'register'>>) =>
        form<{ participation: ParticipationItem }>()(api.POST('/events/{id}/participations', { params: { path: { id: eventId } }, body })),
      /** Several people at once (managers): all or nothing. */
      registerMany: (eventId: number, body: BulkForm<Body<'register'>>) =>
        form<{ participations: ParticipationItem[] }>()(api.POST('/events/{id}/participations', { params: { path: { id: eventId } }, body })),
      /** Several of the event's participations changed at once (managers): attendance, approvals. All or nothing. */
      updateMany: (eventId: number, body: Body<'updateEventParticipations'>) =>
        api.PATCH('/events/{id}/participations', { params: { path: { id: eventId } }, body }),
      list: (eventId: number, query: Query<'listEventParticipations'> = {}) =>
        api.GET('/events/{id}/participations', { params: { path: { id: eventId }, query } }),
      /** The participant list as CSV text (managers). */
      async csv(eventId: number, query: Query<'listEventParticipations'> = {}) {
        const result = await api.GET('/events/{id}/participations', {
          params: { path: { id: eventId }, query },
          headers: { Accept: 'text/csv' },
          parseAs: 'text',
        });
        return result as unknown as { data?: string; error?: unknown; response: Response };
      },
      update: (id: number, body: Body<'updateParticipation'>, ifMatch?: string) =>
        api.PATCH('/participations/{id}', { params: { path: { id } }, body, ...withIfMatch(ifMatch) }),
      ofPerson: (personId: number, query: Query<'listPersonParticipations'> = {}) =>
        api.GET('/people/{id}/participations', { params: { path: { id: personId }, query } }),
    },
    /** The change feed: every change in commit order; keep `next_after` and ask again with `after`. */
    changes: {
      list: (query: Query<'listChanges'> = {}) => api.GET('/changes', { params: { query } }),
      /** History: a resource's change records, newest first. */
      ofPerson: (id: number, query: Query<'personHistory'> = {}) => api.GET('/people/{id}/history', { params: { path: { id }, query } }),
      ofGroup: (id: number, query: Query<'groupHistory'> = {}) => api.GET('/groups/{id}/history', { params: { path: { id }, query } }),
      ofEvent: (id: number, query: Query<'eventHistory'> = {}) => api.GET('/events/{id}/history', { params: { path: { id }, query } }),
    },
    /** Webhooks: signed deliveries of the change records (admin on the root). */
    webhooks: {
      list: (query: Query<'listWebhooks'> = {}) => api.GET('/webhooks', { params: { query } }),
      get: (id: number) => api.GET('/webhooks/{id}', { params: { path: { id } } }),
      /** The answer holds the signing secret; no later answer shows it again. */
      create: (body: Body<'createWebhook'>) => api.POST('/webhooks', { body }),
      update: (id: number, body: Body<'updateWebhook'>, ifMatch?: string) =>
        api.PATCH('/webhooks/{id}', { params: { path: { id } }, body, ...withIfMatch(ifMatch) }),
      delete: (id: number, ifMatch?: string) => api.DELETE('/webhooks/{id}', { params: { path: { id } }, ...withIfMatch(ifMatch) }),
      deliveries: (id: number, query: Query<'listWebhookDeliveries'> = {}) =>
        api.GET('/webhooks/{id}/deliveries', { params: { path: { id }, query } }),
      ping: (id: number) => api.POST('/webhooks/{id}/test', { params: { path: { id } } }),
    },
  };
}

type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
type Body<Op extends keyof operations> = operations[Op] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/**
 * An answer of an operation with two body forms (the single and the bulk one) whose success is the
 * form's own: the document declares both answers under one status, the call knows which it gets.
 */
type FormAnswer<Result, Data> = Promise<Omit<Awaited<Result>, 'data'> & { data?: { success: true; message: string; data: Data } }>;
const form = <Data>() => <Result>(call: Promise<Result>) => call as unknown as FormAnswer<Result, Data>;
/** A list that also answers as files, called for its JSON (no `format`; the client asks for JSON). */
const json = <Data>() => <Result>(call: Promise<Result>) => call as unknown as Promise<Omit<Awaited<Result>, 'data'> & { data?: Data }>;
type JsonOf<Op extends keyof operations> = operations[Op] extends { responses: { 200: { content: { 'application/json': infer J } } } } ? J : never;
type SingleForm<B> = Extract<B, { person_id: number }>;
type BulkForm<B> = Extract<B, { person_ids: number[] }>;
type ParticipationItem = operations['updateEventParticipations']['responses'][200]['content']['application/json']['data']['participations'][number];
type MembershipItem = operations['updateMemberships']['responses'][200]['content']['application/json']['data']['memberships'][number];

/** The If-Match header of a conditional write (412 when the resource changed meanwhile). */
const withIfMatch = (etag: string | undefined) => (etag === undefined ? {} : { headers: { 'If-Match': etag } });

export type GroupadminClient = ReturnType<typeof createClient>;
