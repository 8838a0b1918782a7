import { randomInt, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { Caller, SessionKind } from './caller.js';

// A browser signs in as Sanctum's single-page-app mode has it: an HttpOnly cookie carries a token
// (the database holds its hash, as for every token), and every unsafe request that a cookie would
// authenticate must also carry the XSRF-TOKEN cookie's value in its X-XSRF-TOKEN header. Another
// site can make a browser send the cookies, but cannot read XSRF-TOKEN to copy it into a header.
// Both cookies are host-only (no Domain): tenants are sibling subdomains of one site, so SameSite
// alone would not keep one tenant's page from writing to another's API.

declare module 'fastify' {
  interface FastifyRequest {
    /** A session cookie came with the request (valid, ended or unknown) and no Authorization header. */
    sessionCookie: string | null;
  }
  interface FastifyContextConfig {
    /**
     * 'always': the CSRF check applies even without a session cookie (POST /session); 'never': the
     * route ignores the session cookie and is never checked (POST /login and the like);
     * 'session-form': a route with two forms (a reset, an accepted invitation): with an
     * X-XSRF-TOKEN header it signs a browser in and is always checked, without one it answers
     * as POST /login does and is never checked.
     */
    csrf?: 'always' | 'never' | 'session-form';
  }
}

const PLAIN_NAME = 'groupadmin_session';
/** Over HTTPS the cookie is `__Host-`: the browser keeps it only from a secure, host-only, `Path=/` Set-Cookie. */
const SECURE_NAME = `__Host-${PLAIN_NAME}`;
export const XSRF_COOKIE = 'XSRF-TOKEN';
export const XSRF_HEADER = 'x-xsrf-token';
const XSRF_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const XSRF_FORM = /^[A-Za-z0-9]{40}$/;
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** HTTPS when the socket is TLS, or, with TRUST_PROXY, when the proxy says so (Fastify's `protocol`). */
const isHttps = (request: FastifyRequest): boolean => request.protocol === 'https';

/** The session cookie's name for this request: only the secure one counts over HTTPS, only the plain one over HTTP. */
export const sessionCookieName = (request: FastifyRequest): string => (isHttps(request) ? SECURE_NAME : PLAIN_NAME);

function cookiesOf(request: FastifyRequest): Record<string, string | undefined> {
  const header = request.headers.cookie;
  return header === undefined ? {} : parseCookies(header);
}

/** The session cookie's value, or null. Read only for requests without an Authorization header. */
export function readSessionCookie(request: FastifyRequest): string | null {
  const value = cookiesOf(request)[sessionCookieName(request)];
  return value === undefined || value === '' ? null : value;
}

const baseAttributes = (request: FastifyRequest) => ({ path: '/', sameSite: 'lax' as const, secure: isHttps(request) });

/** Sets the session cookie: no Expires for a short session (it ends with the browser or by idleness), Max-Age when remembered. */
export function setSessionCookie(reply: FastifyReply, request: FastifyRequest, plainToken: string, kind: SessionKind, rememberMs: number): void {
  const maxAge = kind === 'remembered' ? { maxAge: Math.floor(rememberMs / 1000) } : {};
  appendCookie(reply, serializeCookie(sessionCookieName(request), plainToken, { ...baseAttributes(request), httpOnly: true, ...maxAge }));
}

const DAY_MS = 86_400_000;

/**
 * Whether a remembered session's cookie is sent again with this answer, so that its Max-Age
 * counts from recent use rather than from the sign-in: at most once a day, on the first use in a
 * new day counted from the session's start (its last use, written once a minute, lies in an
 * earlier day). A short session's cookie has no Max-Age to renew.
 */
export function cookieDueAgain(caller: Caller, nowMs: number): boolean {
  if (caller.session !== 'remembered') return false;
  const dayOf = (ms: number) => Math.floor((ms - caller.createdAtMs) / DAY_MS);
  return dayOf(nowMs) !== dayOf(caller.lastUsedAtMs ?? caller.createdAtMs);
}

export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest): void {
  appendCookie(reply, serializeCookie(sessionCookieName(request), '', { ...baseAttributes(request), httpOnly: true, maxAge: 0 }));
}

/** A new XSRF-TOKEN: 40 characters of [A-Za-z0-9], readable by the page's script. */
export function setNewXsrfCookie(reply: FastifyReply, request: FastifyRequest): void {
  let value = '';
  for (let i = 0; i < 40; i++) value += XSRF_ALPHABET[randomInt(XSRF_ALPHABET.length)];
  appendCookie(reply, serializeCookie(XSRF_COOKIE, value, baseAttributes(request)));
}

/** GET /csrf-cookie: keeps a well-formed XSRF-TOKEN that is already set, sets a new one otherwise. */
export function ensureXsrfCookie(reply: FastifyReply, request: FastifyRequest): void {
  const current = cookiesOf(request)[XSRF_COOKIE];
  if (current === undefined || !XSRF_FORM.test(current)) setNewXsrfCookie(reply, request);
}

function appendCookie(reply: FastifyReply, cookie: string): void {
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  reply.header('set-cookie', [...list, cookie]);
}

const equalText = (a: string, b: string): boolean => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
};

const DEFAULT_PORT: Record<string, string> = { http: ':80', https: ':443' };

/** The request's own origin: the scheme, the host (X-Forwarded-Host with TRUST_PROXY) and its port unless the default. */
function ownOrigin(request: FastifyRequest): string {
  const host = request.host.endsWith(DEFAULT_PORT[request.protocol] ?? '\u0000') ? request.host.slice(0, -DEFAULT_PORT[request.protocol]!.length) : request.host;
  return `${request.protocol}://${host}`;
}

/**
 * The origin of the tenant's app as mails link to it (PUBLIC_URL, `{tenant}` its slug): the app may
 * be served there rather than on the API's own host.
 */
function publicOrigin(request: FastifyRequest): string | null {
  const template = request.server.mailHub?.config.publicUrl;
  const slug = request.tenant?.slug;
  if (template === undefined || slug === undefined) return null;
  const url = URL.parse(template.replaceAll('{tenant}', slug));
  return url === null ? null : url.origin;
}

/** A session form (POST /password/reset, POST /invitation/accept) is sent with X-XSRF-TOKEN; the token form without. */
export const isSessionForm = (request: FastifyRequest): boolean => request.headers[XSRF_HEADER] !== undefined;

/**
 * The CSRF check, 419 when it fails: for POST, PUT, PATCH and DELETE that a session cookie would
 * authenticate (a cookie present, valid or not, and no Authorization header), for routes that
 * ask for it always, and for the session form of routes that have one. The X-XSRF-TOKEN header and
 * the XSRF-TOKEN cookie are both present, non-empty and equal (compared in constant time), and an
 * Origin header, when sent, is the request's own or that of the tenant's PUBLIC_URL.
 */
export function enforceCsrf(request: FastifyRequest): void {
  if (!UNSAFE.has(request.method)) return;
  const rule = request.routeOptions.config?.csrf;
  if (rule === 'never') return;
  if (rule === 'session-form') {
    if (!isSessionForm(request)) return;
  } else if (rule !== 'always') {
    if (request.sessionCookie === null || request.headers.authorization !== undefined) return;
  }
  const header = request.headers[XSRF_HEADER];
  const cookie = cookiesOf(request)[XSRF_COOKIE];
  if (typeof header !== 'string' || header === '' || cookie === undefined || cookie === '' || !equalText(header, cookie)) throw errors.csrfMismatch();
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== ownOrigin(request) && origin !== publicOrigin(request)) throw errors.csrfMismatch();
}
