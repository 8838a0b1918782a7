import type { Compilable } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../../src/db/storage.js';
import { startMailWorker } from '../../../src/modules/mail/worker.js';
import { buildMailWorld, newMail, type MailWorld } from './helpers.js';

/**
 * The worker's storage, whose look for its next due time (the `min(lease_until)` query) waits
 * with its answer until released (its connection already given back): a test commits mail in
 * that very moment, after the look found nothing due.
 */
function holdingNextLook(storage: Storage) {
  let armed = true;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const held = new Promise<void>((resolve) => (reached = resolve));
  const isNextLook = (query: string) => query.includes('min(') && query.includes('lease_until');
  // Query builders are immutable: each step's builder is wrapped in turn, up to its execution.
  const gated = <B extends object>(builder: B): B =>
    new Proxy(builder, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function') return value;
        if (property === 'executeTakeFirst') {
          return async (...args: unknown[]) => {
            const result = await value.apply(target, args);
            if (armed && isNextLook((target as unknown as Compilable).compile().sql)) {
              reached();
              await released;
            }
            return result;
          };
        }
        return (...args: unknown[]) => {
          const next = value.apply(target, args) as unknown;
          return next !== null && typeof next === 'object' && 'executeTakeFirst' in next ? gated(next) : next;
        };
      },
    });
  const tenantDb = (slug: string) =>
    new Proxy(storage.tenantDb(slug), {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function') return value;
        return property === 'selectFrom' ? (...args: unknown[]) => gated(value.apply(target, args)) : value.bind(target);
      },
    });
  return {
    storage: { ...storage, tenantDb } as Storage,
    held,
    release: () => {
      armed = false;
      release();
    },
  };
}

describe('the mail worker, woken at any moment of its run', () => {
  let w: MailWorld | undefined;
  afterEach(() => w?.close());

  it('sends mail committed while a run plans its next look, at once and not at the next sweep', async () => {
    w = await buildMailWorld();
    const hold = holdingNextLook(w.t.storage);
    const errors: unknown[] = [];
    // The first sweep runs at once, finds nothing due, and plans its next look: held there.
    const worker = startMailWorker({ storage: hold.storage, hub: w.t.app.mailHub, onError: (err) => errors.push(err), sweepMs: 10 * 60_000 });
    try {
      await hold.held;
      await w.queue(newMail({ subject: 'woken meanwhile' }));
      hold.release();
      // The next sweep is ten minutes away: only the wake can send it.
      await w.sink.waitForMails(1, 5_000);
      expect(w.sink.mails.map((mail) => mail.parsed.subject)).toEqual(['woken meanwhile']);
    } finally {
      await worker.stop();
    }
    expect(errors).toEqual([]);
  });
});
