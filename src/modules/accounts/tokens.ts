import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { TOKEN_LIFETIME_MS } from '../mail/rules.js';

// Reset and invitation tokens: 32 random bytes as base64url without padding (43 characters) in the
// mailed link, only their sha256 in the database. A stolen copy of the database opens no account.

export type AccountTokenKind = 'reset' | 'invitation';

// The mail module removes a link from the stored mail when its token runs out: one source for both.
export const RESET_VALID_MS = TOKEN_LIFETIME_MS.reset;
export const INVITATION_VALID_MS = TOKEN_LIFETIME_MS.invitation;

const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export interface NewAccountToken {
  plain: string;
  hash: string;
}

export const hashAccountToken = (plain: string): string => createHash('sha256').update(plain).digest('hex');

export function newAccountToken(): NewAccountToken {
  const plain = randomBytes(32).toString('base64url');
  return { plain, hash: hashAccountToken(plain) };
}

/** The sha256 to look up, or null for a text that cannot be a token (no query then). */
export const lookupHashOf = (token: unknown): string | null => (typeof token === 'string' && TOKEN_FORM.test(token) ? hashAccountToken(token) : null);

/**
 * The stored hash equals the presented one. The row was found by that hash already; the comparison
 * in constant time keeps a lookup that matched loosely (a collation, a trimmed column) from counting.
 */
export function sameHash(stored: string, presented: string): boolean {
  const [a, b] = [Buffer.from(stored, 'utf8'), Buffer.from(presented, 'utf8')];
  return a.length === b.length && timingSafeEqual(a, b);
}
