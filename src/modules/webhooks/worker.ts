import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Storage } from '../../db/storage.js';
import type { TenantDb } from '../../db/types.js';
import { toDbTimestamp } from '../../lib/time.js';
import { feedBounds } from '../../recording/records.js';
import { changeMessage, sendMessage, type WebhookMessage } from './message.js';
import { countFailure, disableFailing, insertDelivery, listDueWebhooks, listWebhookTenants, nextRecordFor, takeLease, updateLeased, type WebhookRow } from './queries.js';
import { retryDelayMs } from './retry-schedule.js';
import { STOPPED, type AttemptOutcome } from './delivery.js';

/**
 * How long an instance holds a webhook for one message (at most 30 s).
 * It is renewed before every message, and a delivery gives up after 10 s, so a live instance never
 * loses it mid-send; a dead one's lease runs out and another instance sends the message again.
 */
export const LEASE_MS = 30_000;
/** Messages sent under one lease before the webhook is given back (other webhooks get their turn). */
const MESSAGES_PER_LEASE = 50;
/**
 * How long stop() waits for the deliveries in flight, which it cuts short: enough for a DNS answer
 * (5 s at most) and the writes that give the webhooks back. After that their leases simply run out.
 */
const STOP_WAIT_MS = 6_000;

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
  // Names the instance in the webhooks it holds (host and process, for an operator), and is unique.
  const holder = `${hostname().slice(0, 30)}:${process.pid}:${randomBytes(6).toString('base64url')}`;
  const inFlight = new Map<string, Promise<void>>();
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The look for due messages under way: stop() waits for it, so no query runs after the storage closes.
  let looking: Promise<void> = Promise.resolve();
  // Each look starts at the next tenant, so a busy tenant cannot keep the others waiting.
  let firstTenant = 0;

  const tick = async () => {
    const tenants = await listWebhookTenants(storage.registry);
    firstTenant = tenants.length === 0 ? 0 : (firstTenant + 1) % tenants.length;
    for (const tenant of [...tenants.slice(firstTenant), ...tenants.slice(0, firstTenant)]) {
      const free = concurrency - inFlight.size;
      if (stopping.signal.aborted || free <= 0) return;
      const db = storage.tenantDb(tenant);
      for (const id of await listDueWebhooks(db, Date.now(), free)) {
        const key = `${tenant}/${id}`;
        if (stopping.signal.aborted) return;
        if (inFlight.has(key) || inFlight.size >= concurrency) continue;
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
      for (let sent = 0; sent < MESSAGES_PER_LEASE && !stopping.signal.aborted && webhook?.enabled; sent++) {
        const message = await nextMessage(db, webhook);
        if (!message) return;
        const outcome = await sendMessage(webhook.url, webhook.secret, message, options.allowPrivate, { signal: stopping.signal });
        // Cut short by stop(): not an attempt; another instance (or this one, restarted) sends it.
        if (outcome.error === STOPPED) return;
        if (!(await recordAttempt(db, webhook, message, outcome))) return;
        // Renews the lease for the next message (and sees a PATCH made meanwhile).
        webhook = await updateLeased(db, id, holder, { lease_until: Date.now() + LEASE_MS });
      }
    } finally {
      // The end of the lease stays as the time the webhook was last served (see listDueWebhooks).
      await updateLeased(db, id, holder, { lease_holder: null, lease_until: Date.now() });
    }
  };

  /** The webhook's next message, or null when it is up to date (its position then moves on). */
  const nextMessage = async (db: TenantDb, webhook: WebhookRow): Promise<WebhookMessage | null> => {
    const { lastSeq, prunedThrough } = await feedBounds(db);
    // Records pruned while the webhook was disabled are gone: it resumes at the oldest one kept.
    const position = Math.max(Number(webhook.position), prunedThrough);
    const entities = webhook.entities === null ? null : (JSON.parse(webhook.entities) as string[]);
    const record = await nextRecordFor(db, position, lastSeq, entities);
    if (record) return changeMessage(webhook.message_prefix, record);
    // Nothing for it up to lastSeq (read before the search, so no record below it can still appear).
    if (lastSeq > Number(webhook.position)) await updateLeased(db, Number(webhook.id), holder, { position: lastSeq });
    return null;
  };

  /**
   * Moves the webhook on after a success; after a failure, schedules the retry or disables it.
   * Logs the attempt. False when the webhook is gone or its lease was lost: stop sending.
   */
  const recordAttempt = (tenantDb: TenantDb, webhook: WebhookRow, message: WebhookMessage, outcome: AttemptOutcome): Promise<boolean> =>
    // One transaction: whoever reads the webhook disabled, or moved on, also reads the attempt that did it.
    tenantDb.transaction().execute(async (db) => {
      const id = Number(webhook.id);
      const now = Date.now();
      let nextRetry: number | null = null;
      let held: WebhookRow | undefined;
      if (outcome.succeeded) {
        held = await updateLeased(db, id, holder, { position: message.seq ?? Number(webhook.position), failures: 0, next_attempt_at: null });
      } else {
        held = await countFailure(db, id, holder);
        const delay = held ? retryDelayMs(options.schedule, Number(held.failures)) : null;
        if (held && delay !== null) {
          nextRetry = now + delay;
          held = await updateLeased(db, id, holder, { next_attempt_at: nextRetry });
        } else if (held) {
          await disableFailing(db, id, holder, toDbTimestamp(new Date(now)));
        }
      }
      if (!held) return false;
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
      return outcome.succeeded;
    });

  const look = () => {
    looking = tick()
      .catch(options.onError)
      .finally(() => {
        if (!stopping.signal.aborted) timer = setTimeout(look, pollMs).unref();
      });
  };
  // The first look at once: messages left by an instance that died go out as soon as one starts.
  look();

  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      const settled = (async () => {
        await looking;
        await Promise.allSettled(inFlight.values());
      })();
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
    },
  };
}
