import { EventEmitter } from 'node:events';
import type { MailConfig } from '../../config.js';

/**
 * What every part of the mail module shares in one process: the configuration and the wake-up
 * call from a request that has just committed mail to the worker of this instance (which then
 * sends it at once instead of at its next sweep).
 */
export interface MailHub {
  readonly config: MailConfig;
  /** True without SMTP_URL: new mail is held in the outbox. */
  readonly held: boolean;
  /** Mail of the tenant was committed: the worker of this process looks at once. */
  wake(tenant: string): void;
  onWake(listener: (tenant: string) => void): () => void;
}

export function createMailHub(config: MailConfig): MailHub {
  const wakes = new EventEmitter();
  wakes.setMaxListeners(0);
  return {
    config,
    held: config.smtpUrl === null,
    wake: (tenant) => void wakes.emit('wake', tenant),
    onWake(listener) {
      wakes.on('wake', listener);
      return () => void wakes.off('wake', listener);
    },
  };
}

/** The tenant's app address, from PUBLIC_URL (never from a request's Host). */
export const tenantAppUrl = (config: Pick<MailConfig, 'publicUrl'>, tenant: string): string => config.publicUrl.replaceAll('{tenant}', tenant);

/** A link into the app: `/#reset=<token>` and the like (a fragment never reaches a server log). */
export const appLink = (config: Pick<MailConfig, 'publicUrl'>, tenant: string, fragment: string): string =>
  `${tenantAppUrl(config, tenant)}/#${fragment}`;
