import type { Kysely } from 'kysely';
import { isForeignKeyViolation } from '../../db/errors.js';
import type { RegistryDatabase, TenantDb } from '../../db/types.js';
import { errors, ruleMessages } from '../../errors.js';
import { requireIfMatch } from '../../http/etag.js';
import { toDbTimestamp } from '../../lib/time.js';
import { feedBounds } from '../../recording/records.js';
import { checkWebhookAddress, type Resolver } from './address.js';
import { newMessagePrefix, pingMessage, sendMessage } from './message.js';
import { deleteWebhook, findWebhook, insertDelivery, insertWebhook, markWebhookTenant, updateWebhook, type DeliveryRow, type WebhookChanges, type WebhookRow } from './queries.js';
import type { NewWebhook, WebhookUpdate } from './schemas.js';
import { newWebhookSecret } from './secret.js';

/** Where a tenant's webhooks live and which addresses they may use. */
export interface WebhookContext {
  db: TenantDb;
  registry: Kysely<RegistryDatabase>;
  tenant: string;
  allowPrivate: boolean;
  resolve?: Resolver;
}

export async function requireWebhook(db: TenantDb, id: number | null): Promise<WebhookRow> {
  const found = id === null ? undefined : await findWebhook(db, id);
  if (!found) throw errors.notFound('Webhook');
  return found;
}

/** 422 on `url` unless it is https with public addresses only (or WEBHOOKS_ALLOW_PRIVATE). */
async function requireAllowedUrl(context: WebhookContext, url: string): Promise<void> {
  const checked = await checkWebhookAddress(url, context.allowPrivate, context.resolve);
  if (!checked.ok) throw errors.invalidField('url', ruleMessages.webhookAddress);
}

const entitiesText = (entities: readonly string[] | null | undefined): string | null => (entities ? JSON.stringify(entities) : null);

/** A new webhook receives the changes committed after it: it starts at the newest seq. */
export async function createWebhook(context: WebhookContext, input: NewWebhook): Promise<WebhookRow> {
  await requireAllowedUrl(context, input.url);
  const now = toDbTimestamp(new Date());
  const { lastSeq } = await feedBounds(context.db);
  // Registered first: a webhook never exists in a tenant the worker does not look into.
  await markWebhookTenant(context.registry, context.tenant);
  return insertWebhook(context.db, {
    url: input.url,
    entities: entitiesText(input.entities),
    description: input.description ?? null,
    enabled: 1,
    disabled_reason: null,
    secret: newWebhookSecret(),
    message_prefix: newMessagePrefix(),
    position: lastSeq,
    next_attempt_at: null,
    lease_holder: null,
    lease_until: null,
    created_at: now,
    updated_at: now,
  });
}

/**
 * PATCH: `enabled: true` resumes a disabled webhook at the message it stopped at, with a fresh
 * retry schedule; `enabled: false` holds its messages until it is enabled again.
 */
export async function changeWebhook(context: WebhookContext, id: number | null, input: WebhookUpdate, ifMatch: string | undefined): Promise<WebhookRow> {
  const current = await requireWebhook(context.db, id);
  requireIfMatch(ifMatch, current.version);
  if (input.url !== undefined) await requireAllowedUrl(context, input.url);
  const changes: WebhookChanges = { updated_at: toDbTimestamp(new Date()) };
  if (input.url !== undefined) changes.url = input.url;
  if (input.entities !== undefined) changes.entities = entitiesText(input.entities);
  if (input.description !== undefined) changes.description = input.description;
  if (input.enabled === true && !current.enabled) Object.assign(changes, { enabled: 1, disabled_reason: null, failures: 0, next_attempt_at: null });
  if (input.enabled === false) Object.assign(changes, { enabled: 0, disabled_reason: null });
  // With If-Match, only the version it named may be changed (the sender may have disabled it meanwhile).
  const updated = await updateWebhook(context.db, Number(current.id), changes, ifMatch === undefined ? null : Number(current.version));
  if (!updated) throw ifMatch === undefined ? errors.notFound('Webhook') : errors.changedBySomeoneElse();
  return updated;
}

export async function removeWebhook(db: TenantDb, id: number | null, ifMatch: string | undefined): Promise<void> {
  const current = await requireWebhook(db, id);
  requireIfMatch(ifMatch, current.version);
  if (!(await deleteWebhook(db, Number(current.id), ifMatch === undefined ? null : Number(current.version)))) {
    throw ifMatch === undefined ? errors.notFound('Webhook') : errors.changedBySomeoneElse();
  }
}

/** `POST /webhooks/{id}/test`: one signed ping now, enabled or not, logged and not retried. */
export async function pingWebhook(context: WebhookContext, id: number | null): Promise<DeliveryRow> {
  const webhook = await requireWebhook(context.db, id);
  const now = new Date();
  const message = pingMessage(webhook.message_prefix, now);
  const outcome = await sendMessage(webhook.url, webhook.secret, message, context.allowPrivate, { resolve: context.resolve });
  // Deleted while the ping ran: nothing left to log it with (also when the deletion lands between
  // this check and the insert, which its foreign key then refuses).
  await requireWebhook(context.db, Number(webhook.id));
  const logged = insertDelivery(context.db, {
    webhook_id: Number(webhook.id),
    message_id: message.id,
    type: message.type,
    seq: null,
    status_code: outcome.statusCode,
    duration_ms: Math.round(outcome.durationMs),
    error: outcome.error,
    next_retry_at: null,
    at: toDbTimestamp(now),
  });
  return logged.catch((error: unknown) => {
    throw isForeignKeyViolation(error) ? errors.notFound('Webhook') : error;
  });
}

// What other modules use of this module's queries: named here, so that its tables stay its own.
export { listWebhookRows } from './queries.js';
