import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Storage } from '../../db/storage.js';
import type { TenantDb } from '../../db/types.js';
import { toDbTimestamp } from '../../lib/time.js';
import { listAllTenants } from '../tenants/rules.js';
import { findUserById } from '../users/rules.js';
import { lowerAscii } from '../../lib/validation.js';
import {
  countRefusal,
  deleteOldMail,
  expireHeldBefore,
  nextLookAt,
  queueHeldSince,
  recordOutcome,
  storeWithoutToken,
  takeDueMails,
  tokenMailsCreatedBefore,
  updateRecipientOfMail,
  type DeliveryOutcome,
  type MailRow,
} from './queries.js';
import { carriesToken, failingAddressesOf, REFUSALS_UNTIL_FAILING, REFUSED_BEFORE, TOKEN_LIFETIME_MS, withoutTokens } from './rules.js';
import type { MailHub } from './settings.js';
import { classifyFailure, createMailTransport, SMTP_CONNECTIONS, type MailTransport } from './transport.js';

/**
 * How long an instance holds a mail it sends. A send gives up within about two minutes (the
 * transport's timeouts) and waits for at most one other send for a connection, so a live
 * instance never loses a lease mid-send; a dead one's runs out and another instance sends the mail.
 */
export const LEASE_MS = 5 * 60_000;
/** Mails handed to the SMTP pool at a time: its connections stay busy, and few leases wait. */
const IN_FLIGHT = 2 * SMTP_CONNECTIONS;
/** Held mail this young goes out once SMTP_URL is set; older held mail expires. */
export const HELD_FOR_MS = 24 * 3_600_000;
/** How often every tenant is looked at: mail an instance left behind when it died, housekeeping. */
export const SWEEP_MS = 5 * 60_000;
/** How long stop() waits for the sends in flight; the leases take care of the rest. */
const STOP_WAIT_MS = 5_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface MailWorkerOptions {
  storage: Storage;
  hub: MailHub;
  onError: (err: unknown) => void;
  /** How often every tenant is swept (default 5 minutes). */
  sweepMs?: number;
}

/**
 * Sends the outbox, off the request path: every instance runs one. A request that committed mail
 * wakes this instance's worker, which sends that tenant's due mail at once; retries wait for their
 * time; and a sweep of every tenant (at start, then every `sweepMs`) sends what an instance that
 * died left behind, and keeps the outbox tidy (held mail, dead links, retention). A lease on each
 * mail makes sure that two instances never send the same one on a clean run.
 */
export function startMailWorker(options: MailWorkerOptions): { stop(): Promise<void> } {
  const { storage, hub, onError, sweepMs = SWEEP_MS } = options;
  const config = hub.config;
  // Names the instance in the mails it holds (host and process, for an operator), and is unique.
  const holder = `${hostname().slice(0, 30)}:${process.pid}:${randomBytes(6).toString('base64url')}`;
  const transport: MailTransport | null = hub.held ? null : createMailTransport(config);
  let stopping = false;
  // Set once stop() gave up waiting: a send cut short then is not recorded (its lease runs out).
  let abandoned = false;
  const runs = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  const inFlight = new Set<Promise<void>>();
  let sweepTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> = Promise.resolve();

  /**
   * Sends the tenant's due mail; one run per tenant at a time. Woken while it runs, it looks once
   * more afterwards, so that mail committed meanwhile does not wait. That holds up to the moment
   * the run ends: a wake while it planned its next look (a query) used to be taken for this run's
   * and left the new mail for the next sweep, five minutes later.
   */
  const run = (tenant: string): Promise<void> => {
    const current = runs.get(tenant);
    if (current) {
      again.add(tenant);
      return current;
    }
    const started = (async () => {
      try {
        do {
          again.delete(tenant);
          await drain(tenant);
          if (again.has(tenant) && !stopping) continue;
          await scheduleNextLook(tenant);
        } while (again.has(tenant) && !stopping);
      } finally {
        // In the same step as the last look at `again`: no wake falls between the two.
        runs.delete(tenant);
      }
    })().catch(onError);
    runs.set(tenant, started);
    return started;
  };

  const drain = async (tenant: string) => {
    if (!transport) return;
    const db = storage.tenantDb(tenant);
    const mine = new Set<Promise<void>>();
    while (!stopping) {
      // Taken a few at a time: the pool still has a mail waiting for each connection meanwhile.
      if (inFlight.size > IN_FLIGHT - SMTP_CONNECTIONS) {
        await Promise.race(inFlight);
        continue;
      }
      const now = Date.now();
      const taken = await takeDueMails(db, holder, now, now + LEASE_MS, IN_FLIGHT - inFlight.size);
      if (taken.length === 0) break;
      const people = taken.flatMap((mail) => (mail.user_id === null ? [] : [{ userId: Number(mail.user_id), email: mail.to_address }]));
      const failing = await failingAddressesOf(db, people);
      for (const mail of taken) {
        const refusedBefore = mail.user_id !== null && failing.has(Number(mail.user_id));
        const send: Promise<void> = deliver(db, transport, mail, refusedBefore)
          .catch(onError)
          .finally(() => {
            inFlight.delete(send);
            mine.delete(send);
          });
        inFlight.add(send);
        mine.add(send);
      }
    }
    await Promise.allSettled(mine);
  };

  /** One attempt at one leased mail, and what it means for the mail, its message and its address. */
  const deliver = async (db: TenantDb, smtp: MailTransport, mail: MailRow, refusedBefore: boolean) => {
    const attempts = Number(mail.attempts) + (refusedBefore ? 0 : 1);
    if (refusedBefore) return finish(db, mail, failedOutcome(mail, attempts, REFUSED_BEFORE), false);
    try {
      await smtp.send(mail);
    } catch (err) {
      if (abandoned) return;
      const failure = classifyFailure(err, config);
      const delaySeconds = failure.kind === 'retry' ? config.retrySchedule[attempts - 1] : undefined;
      if (delaySeconds !== undefined) {
        const retry: DeliveryOutcome = { state: 'queued', attempts, next_attempt_at: Date.now() + delaySeconds * 1000, error: failure.error, sent_at: null };
        await recordOutcome(db, Number(mail.id), holder, retry);
        return;
      }
      return finish(db, mail, failedOutcome(mail, attempts, failure.error), failure.kind === 'refused');
    }
    const sent: DeliveryOutcome = { state: 'sent', attempts, next_attempt_at: null, error: null, sent_at: toDbTimestamp(new Date()), ...scrubbed(mail) };
    await finish(db, mail, sent, false);
  };

  /** The final outcome, the message's recipient line and (for a refusal) the address's count, together. */
  const finish = async (tenantDb: TenantDb, mail: MailRow, outcome: DeliveryOutcome, refused: boolean) => {
    const id = Number(mail.id);
    // The person's current address, read before the transaction: a refusal of an earlier one does not count.
    const countsAgainst = refused && mail.user_id !== null ? await currentAddressIs(tenantDb, Number(mail.user_id), mail.to_address) : false;
    await tenantDb.transaction().execute(async (db) => {
      if (!(await recordOutcome(db, id, holder, outcome))) return;
      if (mail.message_id !== null) await updateRecipientOfMail(db, id, outcome.state === 'sent' ? 'sent' : 'failed', outcome.error);
      if (countsAgainst) {
        await countRefusal(db, Number(mail.user_id), mail.to_address, outcome.error ?? '', toDbTimestamp(new Date()), REFUSALS_UNTIL_FAILING);
      }
    });
  };

  const failedOutcome = (mail: MailRow, attempts: number, error: string): DeliveryOutcome => ({
    state: 'failed',
    attempts,
    next_attempt_at: null,
    error,
    sent_at: null,
    // A mail that never goes out needs its link no more than one that went.
    ...scrubbed(mail),
  });

  const currentAddressIs = async (db: TenantDb, userId: number, address: string) => {
    const user = await findUserById(db, userId);
    return user?.email != null && lowerAscii(user.email) === lowerAscii(address);
  };

  /** When a retry, or another instance's lease, comes due: this instance looks then. */
  const scheduleNextLook = async (tenant: string) => {
    if (!transport || stopping) return;
    const at = await nextLookAt(storage.tenantDb(tenant), Date.now());
    if (at === null || stopping) return;
    const planned = timers.get(tenant);
    if (planned && planned.at <= at && planned.at >= Date.now()) return;
    if (planned) clearTimeout(planned.timer);
    const timer = setTimeout(() => {
      timers.delete(tenant);
      if (!stopping) void run(tenant);
    }, Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now()) + 5)).unref();
    timers.set(tenant, { at, timer });
  };

  /** Held mail, dead links and old mail, then the tenant's due mail. */
  const sweepTenant = async (tenant: string) => {
    const db = storage.tenantDb(tenant);
    const now = Date.now();
    const heldSince = toDbTimestamp(new Date(now - HELD_FOR_MS));
    if (transport) await queueHeldSince(db, heldSince, now);
    await expireHeldBefore(db, heldSince);
    for (const [kind, lifetimeMs] of Object.entries(TOKEN_LIFETIME_MS)) {
      for (;;) {
        const mails = await tokenMailsCreatedBefore(db, kind, toDbTimestamp(new Date(now - lifetimeMs)), 200);
        for (const mail of mails) await storeWithoutToken(db, mail, withoutTokens(mail.text_body), withoutTokens(mail.html_body));
        if (mails.length < 200 || stopping) break;
      }
    }
    await deleteOldMail(db, toDbTimestamp(new Date(now - config.retentionDays * 86_400_000)));
    if (!stopping) await run(tenant);
  };

  const sweep = async () => {
    for (const tenant of await listAllTenants(storage)) {
      if (stopping) return;
      await sweepTenant(tenant.slug).catch(onError);
    }
  };

  const sweepNow = () => {
    sweeping = sweep()
      .catch(onError)
      .finally(() => {
        if (!stopping) sweepTimer = setTimeout(sweepNow, sweepMs).unref();
      });
  };

  const unsubscribe = hub.onWake((tenant) => {
    if (!stopping && transport) void run(tenant);
  });
  // The first sweep at once: mail left by an instance that died goes out as soon as one starts.
  sweepNow();

  return {
    async stop() {
      stopping = true;
      unsubscribe();
      clearTimeout(sweepTimer);
      for (const { timer } of timers.values()) clearTimeout(timer);
      timers.clear();
      const settled = (async () => {
        await sweeping;
        await Promise.allSettled([...runs.values(), ...inFlight]);
      })();
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([settled, new Promise((resolve) => (timeout = setTimeout(resolve, STOP_WAIT_MS)))]);
      clearTimeout(timeout);
      abandoned = true;
      transport?.close();
    },
  };
}

/** After sending (or failing for good): the stored copy without its live link. */
function scrubbed(mail: MailRow): Pick<DeliveryOutcome, 'text_body' | 'html_body' | 'account_token_id'> {
  if (mail.account_token_id === null && !carriesToken(mail.text_body) && !carriesToken(mail.html_body)) return {};
  return { text_body: withoutTokens(mail.text_body), html_body: withoutTokens(mail.html_body), account_token_id: null };
}
