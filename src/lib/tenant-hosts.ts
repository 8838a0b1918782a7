import { isIP } from 'node:net';

/** Tenant slugs are DNS labels; a few names are kept for the service itself. */
const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const RESERVED_SLUGS = new Set(['www', 'api', 'admin']);

export function isValidSlug(slug: string): boolean {
  return SLUG_PATTERN.test(slug) && !RESERVED_SLUGS.has(slug);
}

/** Why a slug is refused, for the CLI's one-line error; null when it is fine. */
export function slugProblem(slug: string): string | null {
  if (RESERVED_SLUGS.has(slug)) return `tenant slug "${slug}" is reserved`;
  if (!SLUG_PATTERN.test(slug)) {
    return `tenant slug "${slug}" is invalid: use 1-63 lowercase letters, digits and inner hyphens`;
  }
  return null;
}

export interface HostRules {
  serviceDomain: string;
  defaultTenant: string | null;
}

/** "Acme.Example.org:8443" -> "acme.example.org"; "[::1]:3000" -> "::1"; a trailing dot is dropped. */
export function normaliseHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    return end === -1 ? name : name.slice(1, end);
  }
  const colons = name.split(':').length - 1;
  if (colons === 1) name = name.slice(0, name.indexOf(':'));
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/**
 * The tenant slug a Host header selects, or null for none: "<slug>.<serviceDomain>" selects
 * the slug; the bare service domain, "localhost" or an IP literal select the default tenant.
 */
export function tenantSlugForHost(host: string | undefined, rules: HostRules): string | null {
  if (!host) return null;
  const name = normaliseHost(host);
  if (name === rules.serviceDomain || name === 'localhost' || isIP(name) !== 0) return rules.defaultTenant;
  const suffix = `.${rules.serviceDomain}`;
  if (!name.endsWith(suffix)) return null;
  const slug = name.slice(0, -suffix.length);
  return isValidSlug(slug) ? slug : null;
}
