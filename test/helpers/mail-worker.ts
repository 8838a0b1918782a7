import { startMailWorker } from '../../src/modules/mail/worker.js';
import type { MailHub } from '../../src/modules/mail/settings.js';
import type { TestApp } from './app.js';

export interface TestMailWorker {
  /** What the worker reported through onError (a test may assert there is none). */
  errors: unknown[];
  stop(): Promise<void>;
}

/**
 * The mail worker of a test app (built with `SMTP_URL: sink.url` to send, without it to hold),
 * woken by the app's own requests. It is stopped before the app closes, whichever comes first.
 */
export function startTestMailWorker(t: TestApp, options: { sweepMs?: number; hub?: MailHub } = {}): TestMailWorker {
  const errors: unknown[] = [];
  const worker = startMailWorker({
    storage: t.storage,
    hub: options.hub ?? t.app.mailHub,
    onError: (err) => errors.push(err),
    ...(options.sweepMs === undefined ? {} : { sweepMs: options.sweepMs }),
  });
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= worker.stop());
  const close = t.close;
  t.close = async () => {
    await stop();
    await close();
  };
  return { errors, stop };
}
