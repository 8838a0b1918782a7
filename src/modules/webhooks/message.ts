import { randomBytes } from 'node:crypto';
import { toApiTimestamp } from '../../lib/time.js';
import { toApiChange } from '../changes/schemas.js';
import { checkWebhookAddress, type Resolver } from './address.js';
import { attemptDelivery, DELIVERY_TIMEOUT_MS, type AttemptOutcome } from './delivery.js';
import type { OutboxRecord } from './queries.js';
import { signMessage } from './signing.js';

/** One message for a webhook: what goes out, and under which id. */
export interface WebhookMessage {
  id: string;
  type: string;
  seq: number | null;
  body: string;
}

/** A random prefix per webhook: message ids then differ between webhooks and tenants. */
export const newMessagePrefix = (): string => randomBytes(12).toString('base64url');

/** The message of a change record: `<entity>.<action>`, its id the same on every retry. */
export function changeMessage(prefix: string, record: OutboxRecord): WebhookMessage {
  const change = toApiChange(record);
  const type = `${change.entity}.${change.action}`;
  const data = { seq: change.seq, entity: change.entity, entity_id: change.entity_id, action: change.action };
  return { id: `msg_${prefix}_${change.seq}`, type, seq: change.seq, body: JSON.stringify({ type, timestamp: toApiTimestamp(record.at), data }) };
}

/** The `test` ping: `data` empty, a new id each time. */
export function pingMessage(prefix: string, now: Date): WebhookMessage {
  const id = `msg_${prefix}_ping_${randomBytes(6).toString('base64url')}`;
  return { id, type: 'ping', seq: null, body: JSON.stringify({ type: 'ping', timestamp: toApiTimestamp(now), data: {} }) };
}

/** The phrase of a failure where the address was refused before any connection. */
export const REFUSED_ADDRESS = 'The address is not allowed (not public, or not https).';

/**
 * One signed attempt. The URL's address is checked again first (DNS may answer differently than when
 * the webhook was saved): a refused address fails without any connection.
 */
export async function sendMessage(
  url: string,
  secret: string,
  message: WebhookMessage,
  allowPrivate: boolean,
  options: { resolve?: Resolver; signal?: AbortSignal } = {},
): Promise<AttemptOutcome> {
  const checked = await checkWebhookAddress(url, allowPrivate, options.resolve);
  if (!checked.ok) return { statusCode: null, durationMs: 0, error: REFUSED_ADDRESS, succeeded: false };
  const headers = signMessage(secret, message.id, new Date(), message.body);
  return attemptDelivery(checked.url, checked.addresses, headers, message.body, DELIVERY_TIMEOUT_MS, options.signal);
}
