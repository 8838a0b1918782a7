import { errors } from '../errors.js';

/**
 * Optimistic concurrency (docs/api/conventions.md): every single resource carries
 * `ETag: "<version>"`, and PATCH and DELETE honour `If-Match`. Without If-Match the write happens
 * (last write wins).
 */
export const etagOf = (version: number | string): string => `"${version}"`;

/**
 * 412 when the request's If-Match names no current version of the resource. `*` matches any;
 * weak tags (W/"..") compare by their value, as a proxy may weaken them.
 */
export function requireIfMatch(ifMatch: string | undefined, currentVersion: number | string): void {
  if (ifMatch === undefined) return;
  const current = etagOf(currentVersion);
  const tags = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (!tags.includes('*') && !tags.includes(current)) throw errors.changedBySomeoneElse();
}
