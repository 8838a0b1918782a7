import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './api-types.js';

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
    /** GET /user: the current user. */
    user: () => api.GET('/user'),
    /** GET /tenant: the tenant's slug, name and time zone. */
    tenant: () => api.GET('/tenant'),
    /** POST /logout: ends this token. */
    async logout() {
      const result = await api.POST('/logout');
      if (result.response.ok) token = undefined;
      return result;
    },
    tokens: {
      list: () => api.GET('/tokens'),
      create: (body: { name: string; abilities?: ('*' | 'user:read' | 'user:write' | 'tokens:read' | 'tokens:write')[]; expires_at?: string }) =>
        api.POST('/tokens', { body }),
      revoke: (id: number) => api.DELETE('/tokens/{id}', { params: { path: { id: String(id) } } }),
      revokeAllOthers: () => api.DELETE('/tokens'),
    },
  };
}

export type GroupadminClient = ReturnType<typeof createClient>;
