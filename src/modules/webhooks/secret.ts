import { randomBytes } from 'node:crypto';

/** The prefix Standard Webhooks gives a signing secret; the rest is base64 of 32 random bytes. */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret, shown to the caller once. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}
