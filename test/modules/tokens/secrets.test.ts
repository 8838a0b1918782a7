import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  formatPlainToken,
  generateTokenSecret,
  hashTokenSecret,
  parseBearerHeader,
  storedTokenDigest,
  tokenSecretMatches,
} from '../../../src/modules/tokens/secrets.js';
import { abilitiesBeyond, hasAbility } from '../../../src/http/abilities.js';

/** Independent crc32b (the IEEE polynomial, as PHP's hash('crc32b')) to check the checksum. */
function crc32b(text: string): string {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text)) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ((crc ^ 0xffffffff) >>> 0).toString(16).padStart(8, '0');
}

describe('token secrets', () => {
  it("have Sanctum's form: 40 alphanumerics and their crc32b", () => {
    const secret = generateTokenSecret('');
    expect(secret).toMatch(/^[A-Za-z0-9]{40}[0-9a-f]{8}$/);
    expect(secret.slice(40)).toBe(crc32b(secret.slice(0, 40)));
    expect(crc32b('The quick brown fox jumps over the lazy dog')).toBe('414fa339');
  });

  it('start with the configured prefix, which the checksum does not cover', () => {
    const secret = generateTokenSecret('ga_');
    expect(secret).toMatch(/^ga_[A-Za-z0-9]{40}[0-9a-f]{8}$/);
    expect(secret.slice(43)).toBe(crc32b(secret.slice(3, 43)));
  });

  it('are different every time', () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateTokenSecret('')));
    expect(seen.size).toBe(200);
  });

  it('are stored as the sha256 hex of the secret part', () => {
    expect(hashTokenSecret('abc')).toBe(createHash('sha256').update('abc').digest('hex'));
    expect(formatPlainToken(7, 'abc')).toBe('7|abc');
  });

  it('compare equal only when the hashes are equal', () => {
    const digest = storedTokenDigest(hashTokenSecret('x'));
    expect(tokenSecretMatches(digest, 'x')).toBe(true);
    expect(tokenSecretMatches(digest, 'y')).toBe(false);
    // A malformed stored hash never matches.
    expect(tokenSecretMatches(storedTokenDigest('short'), 'x')).toBe(false);
    expect(tokenSecretMatches(storedTokenDigest(''), '')).toBe(false);
  });

  it('are remembered in memory of their own, never a slice of a shared pool that they would keep alive', () => {
    const digests = Array.from({ length: 3 }, (_, i) => storedTokenDigest(hashTokenSecret(String(i))));
    for (const [i, digest] of digests.entries()) {
      expect(digest.toString('latin1')).toBe(hashTokenSecret(String(i)));
      expect(digest.buffer.byteLength).toBe(64);
    }
  });
});

describe('parseBearerHeader', () => {
  it('reads "Bearer <id>|<secret>" with the scheme in any case', () => {
    expect(parseBearerHeader('Bearer 12|abc')).toEqual({ id: 12, secret: 'abc' });
    expect(parseBearerHeader('bearer 12|abc')).toEqual({ id: 12, secret: 'abc' });
    expect(parseBearerHeader('BEARER 1|a|b')).toEqual({ id: 1, secret: 'a|b' });
  });

  it.each([
    undefined,
    '',
    'Bearer',
    'Bearer ',
    '12|abc',
    'Token 12|abc',
    'Basic 12|abc',
    'Bearer  12|abc',
    'Bearer 12|',
    'Bearer |abc',
    'Bearer abc',
    'Bearer 1a|abc',
    'Bearer -1|abc',
    'Bearer 0|abc',
    'Bearer 99999999999999999999|abc',
    'Bearer 1.5|abc',
  ])('refuses %j', (header) => {
    expect(parseBearerHeader(header)).toBeNull();
  });
});

describe('abilities', () => {
  it('grants everything for "*" and only listed abilities otherwise', () => {
    expect(hasAbility(['*'], 'user:read')).toBe(true);
    expect(hasAbility(['user:read'], 'user:read')).toBe(true);
    expect(hasAbility(['user:read'], 'tokens:write')).toBe(false);
    expect(hasAbility([], 'user:read')).toBe(false);
  });

  it('cannot be handed on by a token that lacks them', () => {
    expect(abilitiesBeyond(['*'], ['*', 'tokens:write'])).toEqual([]);
    expect(abilitiesBeyond(['user:read', 'tokens:write'], ['user:read'])).toEqual([]);
    expect(abilitiesBeyond(['user:read', 'tokens:write'], ['*', 'user:write', 'user:read'])).toEqual(['*', 'user:write']);
  });
});
