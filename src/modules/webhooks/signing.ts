import { Webhook } from 'standardwebhooks';

/** The headers of one delivery attempt; the id stays the same on every retry of a message. */
export interface SignedHeaders {
  'content-type': 'application/json';
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs a message as the Standard Webhooks specification asks: `v1,` and the base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>" keyed with the secret's decoded bytes. The library does the signing so that
 * receivers verifying with any Standard Webhooks library agree with us byte for byte.
 */
export function signMessage(secret: string, messageId: string, sentAt: Date, body: string): SignedHeaders {
  // Standard Webhooks timestamps are whole Unix seconds; sign the same second the header states.
  const second = new Date(Math.floor(sentAt.getTime() / 1000) * 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(second.getTime() / 1000),
    'webhook-signature': new Webhook(secret).sign(messageId, second, body),
  };
}
