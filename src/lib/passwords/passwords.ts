import { Algorithm } from '@node-rs/argon2';
import { randomInt } from 'node:crypto';
import { createHashingThreads, HashJobError } from './hashing.js';

// argon2id with OWASP's recommended floor, hashed on low-priority threads of its own (see
// hashing.ts), so a login never blocks the event loop nor takes CPU it needs. At most
// (cores - 1) hashes run at once, so one core stays free for answering requests (measured before
// the threads were niced: GET /api/user p99 4 ms -> 16 ms with 4 concurrent hashes on 2 cores).
const ARGON2_OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 };
const CURRENT_PARAMS_PREFIX = '$argon2id$v=19$m=19456,t=2,p=1$';
const BCRYPT_PREFIX = /^\$2[abxy]\$/;

const hashing = createHashingThreads();

export const hashPassword = async (plain: string): Promise<string> =>
  (await hashing.run({ op: 'argon2-hash', plain, options: ARGON2_OPTIONS })) as string;

export interface PasswordCheck {
  valid: boolean;
  /** The stored hash is bcrypt (imported) or has older parameters: replace it after a success. */
  needsRehash: boolean;
}

export async function verifyPassword(storedHash: string, plain: string): Promise<PasswordCheck> {
  try {
    if (BCRYPT_PREFIX.test(storedHash)) {
      return { valid: (await hashing.run({ op: 'bcrypt-verify', hash: storedHash, plain })) === true, needsRehash: true };
    }
    if (storedHash.startsWith('$argon2')) {
      const valid = (await hashing.run({ op: 'argon2-verify', hash: storedHash, plain })) === true;
      return { valid, needsRehash: !storedHash.startsWith(CURRENT_PARAMS_PREFIX) };
    }
  } catch (err) {
    // A malformed stored hash is a failed check, never an error for the caller; a hashing thread
    // that failed is an error (a login must not be refused as a wrong password for it).
    if (!(err instanceof HashJobError)) throw err;
  }
  return { valid: false, needsRehash: false };
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same work as checking a real password, for logins whose user does not exist
 * or cannot log in, so response time does not reveal which usernames exist.
 */
export async function spendPasswordCheck(plain: string): Promise<void> {
  dummyHash ??= hashPassword('groupadmin-timing-equaliser').catch((err: unknown) => {
    dummyHash = undefined; // try again next time rather than remember the failure
    throw err;
  });
  const hash = await dummyHash;
  await hashing.run({ op: 'argon2-verify', hash, plain });
}

const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** A strong random password (24 characters, about 140 bits) for accounts made without one. */
export function generatePassword(): string {
  let password = '';
  for (let i = 0; i < 24; i++) password += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return password;
}
