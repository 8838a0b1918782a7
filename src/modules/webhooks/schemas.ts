import Type, { type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { toApiTimestamp, toApiTimestampOrNull } from '../../lib/time.js';
import { StoredText } from '../../lib/validation.js';
import { Entity } from '../changes/schemas.js';
import type { DeliveryRow, WebhookRow } from './queries.js';

const Url = StoredText({ minLength: 1, maxLength: 2048, description: 'https:// and a public address' });
const Entities = Type.Union([Type.Array(Entity, { minItems: 1, maxItems: 7, uniqueItems: true }), Type.Null()], {
  description: 'The kinds of change records to send (at least one); null or absent: all',
});
const Description = Type.Union([StoredText({ maxLength: 10_000 }), Type.Null()]);

export const NewWebhookSchema = Type.Object({ url: Url, entities: Type.Optional(Entities), description: Type.Optional(Description) });
export type NewWebhook = Static<typeof NewWebhookSchema>;

export const WebhookUpdateSchema = Type.Object({
  url: Type.Optional(Url),
  entities: Type.Optional(Entities),
  description: Type.Optional(Description),
  enabled: Type.Optional(Type.Boolean({ description: 'true resumes a disabled webhook at the message it stopped at' })),
});
export type WebhookUpdate = Static<typeof WebhookUpdateSchema>;

const common = {
  id: Type.Integer(),
  url: Type.String(),
  entities: Type.Union([Type.Array(Entity), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
};

/** A webhook as every answer but its creation shows it: without the secret, with why it was disabled. */
export const WebhookSchema = Type.Object({
  ...common,
  disabled_reason: Type.Union([Type.Literal('failing'), Type.Null()], { description: "'failing': its last retry failed" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** The answer to POST /webhooks: the only one with the secret. */
export const CreatedWebhookSchema = Type.Object({ ...common, secret: Type.String({ description: 'whsec_...; shown this once' }), created_at: Timestamp, updated_at: Timestamp });

export const DeliverySchema = Type.Object({
  id: Type.Integer(),
  message_id: Type.String({ description: 'The webhook-id header: the same on every attempt at one message' }),
  type: Type.String({ description: "'person.updated', ..., or 'ping'" }),
  seq: Type.Union([Type.Integer(), Type.Null()], { description: 'The change record sent; null for a ping' }),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's status; null when none came" }),
  duration_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  next_retry_at: Type.Union([Timestamp, Type.Null()], { description: 'When the message is tried again; null after success, a ping, or the last failure' }),
  at: Timestamp,
});

const entitiesOf = (row: WebhookRow) => (row.entities === null ? null : (JSON.parse(row.entities) as Static<typeof Entity>[]));

const commonOf = (row: WebhookRow) => ({
  id: Number(row.id),
  url: row.url,
  entities: entitiesOf(row),
  description: row.description,
  enabled: Boolean(row.enabled),
});

export const toApiWebhook = (row: WebhookRow): Static<typeof WebhookSchema> => ({
  ...commonOf(row),
  disabled_reason: row.disabled_reason === 'failing' ? 'failing' : null,
  created_at: toApiTimestamp(row.created_at),
  updated_at: toApiTimestamp(row.updated_at),
});

export const toApiCreatedWebhook = (row: WebhookRow): Static<typeof CreatedWebhookSchema> => ({
  ...commonOf(row),
  secret: row.secret,
  created_at: toApiTimestamp(row.created_at),
  updated_at: toApiTimestamp(row.updated_at),
});

export const toApiDelivery = (row: DeliveryRow): Static<typeof DeliverySchema> => ({
  id: Number(row.id),
  message_id: row.message_id,
  type: row.type,
  seq: row.seq === null ? null : Number(row.seq),
  status_code: row.status_code,
  duration_ms: row.duration_ms,
  error: row.error,
  next_retry_at: toApiTimestampOrNull(row.next_retry_at),
  at: toApiTimestamp(row.at),
});
