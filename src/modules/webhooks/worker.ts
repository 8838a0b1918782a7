import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Storage } from '../../db/storage.js';
import type { TenantDatabase } from '../../db/types.js';
import { toDbTimestamp } from '../../lib/time.js';
import { feedBounds } from '../changes/queries.js';
import { changeMessage, sendMessage, type WebhookMessage } from './message.js';
import { insertDelivery, listDueWebhooks, listWebhookTenants, nextRecordFor, takeLease, updateLeased, type WebhookRow } from './queries.js';
import { retryDelayMs } from './retry-schedule.js';
import type { AttemptOutcome } from './delivery.js';

type TenantDb = Kysely<TenantDatabase>;

/**
 * How long an instance holds a webhook for one message (integrations.md section 4: at most 30 s).
 * It is renewed before every message, and a delivery gives up after 10 s, so a live instance never
 * loses it mid-send; a dead one's lease runs out and another instance sends the message again.
 */
export const LEASE_MS = 30_000;
/** Messages sent under one lease before the webhook is given back (other webhooks get their turn). */
const MESSAGES_PER_LEASE = 50;
/** How long stop() waits for deliveries in flight; after that their leases simply run out. */
const STOP_WAIT_MS = 2_000;

export interface WebhookWorkerOptions {
  storage: Storage;
  allowPrivate: boolean;
  /** Seconds before each retry (WEBHOOK_RETRY_SCHEDULE). */
  schedule: readonly number[];
  onError: (err: unknown) => void;
  /** How often due messages are looked for. */
  pollMs?: number;
  /** Webhooks this instance sends to at the same time (each one message at a time, in order). */
  concurrency?: number;
}

/**
 * Sends the change records to the webhooks, off the request path: every instance runs one. The
 * change records are the outbox and each webhook's `position` says how far it got, so a message
 * committed but not yet sent survives any crash; the lease makes sure one instance at a time sends
 * a webhook's next message, and so keeps each webhook's messages in seq order.
 */
export function startWebhookWorker(options: WebhookWorkerOptions): { stop(): Promise<void> } {
  const { storage, pollMs = 1_000, concurrency = 8 } = options;
  const holder = randomBytes(12).toString('base64url');
  const inFlight = new Map<string, Promise<void>>();
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;

  const tick = async () => {
    for (const tenant of await listWebhookTenants(storage.registry)) {
      if (stopping || inFlight.size >= concurrency) return;
      const db = storage.tenantDb(tenant);
      for (const id of await listDueWebhooks(db, Date.now(), concurrency)) {
        const key = `${tenant}/${id}`;
        if (stopping || inFlight.size >= concurrency) return;
        if (inFlight.has(key)) continue;
        const run = sendDue(db, id)
          .catch(options.onError)
          .finally(() => inFlight.delete(key));
        inFlight.set(key, run);
      }
    }
  };

  /** Takes the webhook and sends its due messages in order until it fails, runs dry or is taken. */
  const sendDue = async (db: TenantDb, id: number) => {
    let webhook = await takeLease(db, id, holder, Date.now(), Date.now() + LEASE_MS);
    if (!webhook) return;
    try {
      for (let sent = 0; sent < MESSAGES_PER_LEASE && !stopping && webhook?.enabled; sent++) {
        const next = await nextMessage(db, webhook);
        if (!next) return;
        const outcome = await sendMessage(webhook.url, webhook.secret, next.message, options.allowPrivate);
        webhook = await recordAttempt(db, webhook, next.message, outcome);
        if (!outcome.succeeded) return;
        // Renews the lease for the next message (and sees a PATCH made meanwhile).
        webhook = webhook && (await updateLeased(db, id, holder, { lease_until: Date.now() + LEASE_MS }));
      }
    } finally {
      await updateLeased(db, id, holder, { lease_holder: null, lease_until: null });
    }
  };

  /** The webhook's next message, or null when it is up to date (its position then moves on). */
  const nextMessage = async (db: TenantDb, webhook: WebhookRow): Promise<{ message: WebhookMessage } | null> => {
    const { lastSeq, prunedThrough } = await feedBounds(db);
    // Records pruned while the webhook was disabled are gone: it resumes at the oldest one kept.
    const position = Math.max(Number(webhook.position), prunedThrough);
    const entities = webhook.entities === null ? null : (JSON.parse(webhook.entities) as string[]);
    const record = await nextRecordFor(db, position, lastSeq, entities);
    if (record) return { message: changeMessage(webhook.message_prefix, record) };
    // Nothing for it up to lastSeq (read before the search, so no record below it can still appear).
    if (lastSeq > Number(webhook.position)) await updateLeased(db, Number(webhook.id), holder, { position: lastSeq });
    return null;
  };

  /** Moves the webhook on after a success; after a failure, schedules the retry or disables it. */
  const recordAttempt = async (db: TenantDb, webhook: WebhookRow, message: WebhookMessage, outcome: AttemptOutcome) => {
    const id = Number(webhook.id);
    const now = Date.now();
    let nextRetry: number | null = null;
    let updated: WebhookRow | undefined;
    if (outcome.succeeded) {
      updated = await updateLeased(db, id, holder, { position: message.seq ?? Number(webhook.position), failures: 0, next_attempt_at: null });
    } else {
      const failures = Number(webhook.failures) + 1;
      const delay = retryDelayMs(options.schedule, failures);
      nextRetry = delay === null ? null : now + delay;
      updated = await updateLeased(
        db,
        id,
        holder,
        delay === null ? { failures, next_attempt_at: null, enabled: 0, disabled_reason: 'failing' } : { failures, next_attempt_at: nextRetry },
      );
    }
    await insertDelivery(db, {
      webhook_id: id,
      message_id: message.id,
      type: message.type,
      seq: message.seq,
      status_code: outcome.statusCode,
      duration_ms: Math.round(outcome.durationMs),
      error: outcome.error,
      next_retry_at: nextRetry === null ? null : toDbTimestamp(new Date(nextRetry)),
      at: toDbTimestamp(new Date(now)),
    });
    return updated;
  };

  const loop = () => {
    timer = setTimeout(() => {
      void tick()
        .catch(options.onError)
        .finally(() => {
          if (!stopping) loop();
        });
    }, pollMs);
    timer.unref();
  };
  // The first look at once: messages left by an instance that died go out as soon as one starts.
  void tick()
    .catch(options.onError)
    .finally(() => {
      if (!stopping) loop();
    });

  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await Promise.race([Promise.allSettled(inFlight.values()), new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
    },
  };
}
