import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createStorage } from '../db/index.js';
import type { Storage } from '../db/storage.js';
import { generatePassword } from '../lib/passwords/passwords.js';
import { createTenant, hasNoTenants, listAllTenants, migrateAll } from '../modules/tenants/rules.js';
import { grantFirstAdministrator } from '../modules/memberships/first-admin.js';
import { dayIn } from '../modules/permissions/calendar.js';
import { createUser } from '../modules/users/rules.js';

/** Opens the configured storage and brings the registry and every tenant to the latest migration. */
export async function openStorage(config: Config): Promise<Storage> {
  const storage = await createStorage(config);
  try {
    await migrateAll(storage, { onlyWhenBehind: true });
  } catch (err) {
    await storage.close();
    throw err;
  }
  return storage;
}

export interface FirstStartAccount {
  tenant: string;
  username: string;
  password: string;
}

/**
 * On an empty registry, creates DEFAULT_TENANT (in the time zone `TZ` names, else UTC) with a user
 * "admin", administrator of the root group, and a random password.
 * Returns that account once; every later start finds tenants and returns null.
 */
export async function seedFirstStart(storage: Storage, config: Config): Promise<FirstStartAccount | null> {
  if (!config.defaultTenant || !(await hasNoTenants(storage))) return null;
  const tenant = await createTenant(storage, config.defaultTenant, 'Demo', config.firstTenantTimeZone);
  const password = generatePassword();
  const db = storage.tenantDb(tenant.slug);
  const admin = await createUser(db, {
    username: 'admin',
    email: 'admin@example.com',
    firstname: 'Admin',
    lastname: 'User',
    password,
  });
  await grantFirstAdministrator(db, admin.id, dayIn(tenant.timezone, new Date()));
  return { tenant: tenant.slug, username: 'admin', password };
}

/** A login command that can be pasted into a shell as it is. */
export function curlLoginCommand(config: Config, account: FirstStartAccount): string {
  const base = serviceAddress(config);
  const body = JSON.stringify({ username: account.username, password: account.password });
  return [
    `curl -s -X POST ${base}/api/login`,
    `-H 'Content-Type: application/json' -H 'Accept: application/json'`,
    `-d '${body}'`,
  ].join(' ');
}

/** Where this process answers, as a local client reaches it (the default tenant's host). */
function serviceAddress(config: Pick<Config, 'host' | 'port'>): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** Shows the first start's account once, on standard output, as a command to paste. */
export function printFirstStart(config: Config, account: FirstStartAccount, port: number): void {
  // The password exists nowhere else in readable form.
  process.stdout.write(
    [
      '',
      `First start: created tenant "${account.tenant}" and user "${account.username}".`,
      'Log in with:',
      `  ${curlLoginCommand({ ...config, port }, account)}`,
      `or open the web app: ${serviceAddress({ ...config, port })}/`,
      '',
      '',
    ].join('\n'),
  );
}

/**
 * A process that died between a commit and its relay left the change in the tenant's outbox:
 * relayed once per start, in the background (the next write to that tenant that names users or
 * tokens relays it too; until
 * then the other instances re-read a remembered token row at most TOKEN_ROW_MAX_AGE_MS old).
 */
export function relayLeftovers(storage: Storage, log: Logger): { done: Promise<void>; cancel(): void } {
  let cancelled = false;
  const done = (async () => {
    try {
      for (const tenant of await listAllTenants(storage)) {
        if (cancelled) return;
        await storage.invalidations.relay(tenant.slug);
      }
      await storage.invalidations.retryPending();
    } catch (err) {
      log.warn({ err }, 'could not relay the cache changes left by an earlier process; the feed retries them');
    }
  })();
  return { done, cancel: () => void (cancelled = true) };
}
