import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { SignedHeaders } from './signing.js';

/** A receiver has this long to answer 2xx; anything later counts as a failure. */
export const DELIVERY_TIMEOUT_MS = 10_000;

export interface AttemptOutcome {
  /** The receiver's status code, or null when no answer came (refused, timed out, TLS error). */
  statusCode: number | null;
  durationMs: number;
  /** A short reason for a failure, safe to show to the webhook's owner; null on success. */
  error: string | null;
  succeeded: boolean;
}

/**
 * POSTs one signed message to `url`, connecting only to `addresses` (already checked by
 * checkWebhookAddress): the host name still goes into SNI, certificate checks and the Host header, but
 * DNS is not asked again, so a rebinding answer cannot send the request elsewhere. Only the status
 * matters: the receiver's body is not read.
 */
/** The error of an attempt cut short by `signal` (the instance is stopping): not the receiver's failure. */
export const STOPPED = 'The sender stopped before an answer came.';

export function attemptDelivery(
  url: URL,
  addresses: string[],
  headers: SignedHeaders,
  body: string,
  timeoutMs = DELIVERY_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const pinned = pinnedLookup(addresses);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const succeeded = error === null && statusCode !== null && statusCode >= 200 && statusCode < 300;
      resolve({ statusCode, durationMs: Math.round(performance.now() - started), error: succeeded ? null : (error ?? `HTTP ${statusCode}`), succeeded });
    };
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': Buffer.byteLength(body), 'user-agent': 'groupadmin-webhooks' },
      lookup: pinned,
      agent: false,
    }, (response) => {
      // The status line decides (a 2xx within 10 s is success): a body that
      // is slow or never ends changes nothing, so it is not read; the connection (never reused) ends.
      finish(response.statusCode ?? null, null);
      response.destroy();
    });
    const timer = setTimeout(() => {
      finish(null, `No answer within ${timeoutMs / 1000} s.`);
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(null, describeNetworkError(error)));
    const stop = () => {
      finish(null, STOPPED);
      request.destroy();
    };
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
    request.on('close', () => signal?.removeEventListener('abort', stop));
    request.end(body);
  });
}

function pinnedLookup(addresses: string[]): LookupFunction {
  return (_host, options, callback) => {
    const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all === true) {
      (callback as (error: null, entries: { address: string; family: number }[]) => void)(null, entries);
    } else {
      callback(null, entries[0]!.address, entries[0]!.family);
    }
  };
}

/** Network errors become a fixed phrase per kind: no stack, no internal detail. */
function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED': return 'The connection was refused.';
    case 'ECONNRESET': return 'The connection was reset.';
    case 'EHOSTUNREACH': case 'ENETUNREACH': return 'The address could not be reached.';
    case 'ETIMEDOUT': return 'The connection timed out.';
    default:
      return error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT') ? 'The TLS handshake failed.' : 'The request failed.';
  }
}
