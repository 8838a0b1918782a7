import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to every address it has, as `dns.lookup(host, {all: true})` does. */
export type Resolver = (host: string) => Promise<string[]>;

/** A name that does not resolve within this long is refused (a request waits for the answer). */
const LOOKUP_TIMEOUT_MS = 5_000;

export const systemResolver: Resolver = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no DNS answer for ${host} in time`)), LOOKUP_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([lookup(host, { all: true, verbatim: true }), timeout])).map((entry) => entry.address);
  } finally {
    clearTimeout(timer);
  }
};

export type AddressCheck =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false };

/**
 * Decides whether a webhook may be sent to `rawUrl`, and to which addresses. Unless private targets are
 * allowed, the URL must be https and every address its host resolves to must be public unicast: one
 * private answer among public ones refuses the URL, so a host cannot smuggle in an internal address.
 * The caller connects only to the returned addresses (pinning), so a second, different DNS answer at
 * connection time cannot redirect the request into the operator's network.
 */
export async function checkWebhookAddress(rawUrl: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<AddressCheck> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false };
  }
  const schemeAllowed = url.protocol === 'https:' || (allowPrivate && url.protocol === 'http:');
  if (!schemeAllowed || url.username !== '' || url.password !== '' || url.hostname === '') return { ok: false };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false };
    }
  }
  if (addresses.length === 0) return { ok: false };
  if (!allowPrivate && !addresses.every(isPublicAddress)) return { ok: false };
  return { ok: true, url, addresses };
}

/** True only for globally routable unicast addresses; an IPv4-mapped IPv6 address is judged as IPv4. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  // The deprecated IPv4-compatible form (::a.b.c.d, ::/96) counts as unicast for ipaddr.js; it
  // is no public address.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}
