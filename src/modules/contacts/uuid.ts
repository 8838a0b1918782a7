import { createHash } from 'node:crypto';

/** RFC 4122's namespace for names that are URLs (and, by custom, other stable text keys). */
export const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/**
 * A name-based UUID (version 5, RFC 4122 section 4.3): the same name in the same namespace gives
 * the same UUID on every instance and every run. Node's crypto makes only random ones (v4).
 */
export function uuidV5(name: string, namespace: string = URL_NAMESPACE): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
