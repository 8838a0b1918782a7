import { expect } from 'vitest';
import { hostOf, PASSWORD, type TestApp } from './app.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The answer of a request whose XSRF header is missing or does not match the cookie. */
export const CSRF = { success: false, message: 'CSRF token mismatch.' };

/** The Set-Cookie lines of an answer, by cookie name. */
export function setCookies(headers: Record<string, unknown>): Map<string, string> {
  const raw = headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? (raw as string[]) : [String(raw)];
  return new Map(lines.map((line) => [line.slice(0, line.indexOf('=')), line]));
}

/** The decoded value of a Set-Cookie line. */
export const cookieValue = (line: string) => decodeURIComponent(line.slice(line.indexOf('=') + 1).split(';')[0]!);

/**
 * A browser as a single-page app is one: keeps the cookies the service sets and sends them back,
 * and copies XSRF-TOKEN into the header when told to. `extra` headers go with every request.
 */
export class CookieBrowser {
  readonly jar = new Map<string, string>();
  constructor(
    private readonly t: TestApp,
    private readonly tenant = 'demo',
    private readonly extra: Record<string, string> = {},
  ) {}

  async send(method: Method, url: string, options: { body?: unknown; xsrf?: boolean | string; headers?: Record<string, string> } = {}) {
    const cookie = [...this.jar].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
    const xsrf = options.xsrf === true ? this.jar.get('XSRF-TOKEN') : typeof options.xsrf === 'string' ? options.xsrf : undefined;
    const answer = await this.t.app.inject({
      method,
      url: `/api${url}`,
      headers: {
        host: hostOf(this.tenant),
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(cookie === '' ? {} : { cookie }),
        ...(xsrf === undefined ? {} : { 'x-xsrf-token': xsrf }),
        ...this.extra,
        ...options.headers,
      },
      ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
    });
    for (const [name, line] of setCookies(answer.headers)) {
      if (/Max-Age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, cookieValue(line));
    }
    return answer;
  }

  async csrfCookie(): Promise<void> {
    expect((await this.send('GET', '/csrf-cookie')).statusCode).toBe(204);
  }

  /** Signs in with POST /session (alice and the test password unless `fields` say otherwise). */
  async signIn(fields: Record<string, unknown> = {}) {
    await this.send('GET', '/csrf-cookie');
    const answer = await this.send('POST', '/session', { body: { username: 'alice', password: PASSWORD, ...fields }, xsrf: true });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer;
  }
}
