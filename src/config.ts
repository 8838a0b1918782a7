import { accessSync, constants } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import Type, { type Static } from 'typebox';
import { Value } from 'typebox/value';
import { isValidSlug } from './lib/tenant-hosts.js';
import { canonicalTimeZone } from './lib/time.js';

/**
 * The pauses, in seconds, before each retry of a failed message: about
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. After the last one fails the webhook is disabled.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = Object.freeze([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);

/** Reads WEBHOOK_RETRY_SCHEDULE ("5,300,1800"): positive whole seconds, at most 50 of them, each at most a week. */
export function parseRetrySchedule(raw: string): number[] | null {
  if (raw.trim() === '') return [...DEFAULT_RETRY_SCHEDULE];
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 50 || !parts.every((part) => /^\d{1,6}$/.test(part))) return null;
  const seconds = parts.map(Number);
  return seconds.every((value) => value >= 1 && value <= 604_800) ? seconds : null;
}

/** The CSV import's limits when IMPORT_BODY_LIMIT and IMPORT_MAX_ROWS are not set. */
export const IMPORT_DEFAULTS = Object.freeze({ bodyLimit: 10 * 1024 * 1024, maxRows: 20_000 });

/**
 * Environment variables as they arrive (strings), with their defaults and limits.
 * Converted and checked by loadConfig(); nothing reads process.env at import time.
 */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.String({ default: '' }),
  REDIS_URL: Type.String({ default: '' }),
  REDIS_KEY_PREFIX: Type.String({ pattern: '^[A-Za-z0-9:_-]{1,64}$', default: 'groupadmin' }),
  SERVICE_DOMAIN: Type.String({ pattern: '^[a-z0-9.-]+$', default: 'localhost' }),
  DEFAULT_TENANT: Type.String({ default: 'demo' }),
  RATE_LIMIT_AUTHENTICATED: Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 60 }),
  RATE_LIMIT_UNAUTHENTICATED: Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 10 }),
  /** Fetches of one calendar feed a minute (per tenant and feed token). */
  RATE_LIMIT_CALENDAR: Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 30 }),
  BODY_LIMIT: Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024, default: 65536 }),
  TRUST_PROXY: Type.String({ default: 'false' }),
  TOKEN_PREFIX: Type.String({ pattern: '^[A-Za-z0-9_-]{0,32}$', default: '' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  TENANT_CACHE_SIZE: Type.Integer({ minimum: 1, maximum: 100_000, default: 100 }),
  WORKERS: Type.Union([Type.Literal('auto'), Type.Integer({ minimum: 1, maximum: 64 })], { default: 1 }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 10_000 }),
  HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
  REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 30_000 }),
  KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 72_000 }),
  MAX_HEADER_SIZE: Type.Integer({ minimum: 1024, maximum: 1_048_576, default: 16_384 }),
  SESSION_IDLE_MINUTES: Type.Integer({ minimum: 1, maximum: 525_600, default: 120 }),
  SESSION_REMEMBER_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 30 }),
  MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 10_000 }),
  TLS_CERT_FILE: Type.String({ default: '' }),
  TLS_KEY_FILE: Type.String({ default: '' }),
  REQUIRE_HTTPS: Type.Boolean({ default: false }),
  CORS_ORIGINS: Type.String({ default: '' }),
  IMPORT_BODY_LIMIT: Type.Integer({ minimum: 1024, maximum: 1024 * 1024 * 1024, default: IMPORT_DEFAULTS.bodyLimit }),
  IMPORT_MAX_ROWS: Type.Integer({ minimum: 1, maximum: 10_000_000, default: IMPORT_DEFAULTS.maxRows }),
  /** Change records are kept at least this many days. */
  CHANGES_RETENTION_DAYS: Type.Integer({ minimum: 30, maximum: 36_500, default: 30 }),
  /** Lets webhooks use http:// and private addresses (tests, closed networks). */
  WEBHOOKS_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  /** Seconds between a webhook's failed attempts, comma-separated; '' is the default schedule. */
  WEBHOOK_RETRY_SCHEDULE: Type.String({ default: '' }),
  /** Where mail goes (smtp:// or smtps://); unset: mail is held in the outbox (`groupadmin mail list`). */
  SMTP_URL: Type.String({ default: '' }),
  /** The From of every mail; default `groupadmin <no-reply@SERVICE_DOMAIN>`. */
  MAIL_FROM: Type.String({ default: '' }),
  /** The address of the app in mails: `{tenant}` stands for the tenant's slug. */
  PUBLIC_URL: Type.String({ default: '' }),
  MESSAGES_PER_HOUR: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 20 }),
  MAIL_RECIPIENTS_PER_DAY: Type.Integer({ minimum: 1, maximum: 100_000_000, default: 5000 }),
  MAIL_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 36_500, default: 30 }),
  /** Seconds between a mail's failed attempts, comma-separated; '' is the default schedule. */
  MAIL_RETRY_SCHEDULE: Type.String({ default: '' }),
});

type Env = Static<typeof EnvSchema>;

/** Set but empty means "none" for these (DEFAULT_TENANT="" serves no default tenant); for the rest it means the default. */
const MAY_BE_EMPTY = new Set(['DEFAULT_TENANT', 'TOKEN_PREFIX', 'DATABASE_URL', 'REDIS_URL', 'TLS_CERT_FILE', 'TLS_KEY_FILE', 'CORS_ORIGINS', 'SMTP_URL']);

/** Fastify's trustProxy forms: off/on, a hop count, or trusted addresses and CIDRs. */
export type TrustProxy = boolean | number | string[];

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  /** Prefix of every Redis key, so deployments can share one Redis. */
  readonly redisKeyPrefix: string;
  readonly serviceDomain: string;
  readonly defaultTenant: string | null;
  readonly rateLimitAuthenticated: number;
  readonly rateLimitUnauthenticated: number;
  /** Fetches of one calendar feed a minute: calendar services fetch many families' feeds from a few addresses. */
  readonly rateLimitCalendar: number;
  readonly bodyLimit: number;
  readonly trustProxy: TrustProxy;
  readonly tokenPrefix: string;
  readonly logLevel: string;
  /** How many tenant databases stay open at once; the least recently used is closed beyond it. */
  readonly tenantCacheSize: number;
  /** Worker processes sharing the port; 1 runs the service in this process. */
  readonly workers: number;
  /** How long a stopping process waits for requests in flight. */
  readonly shutdownTimeoutMs: number;
  /** Slow and greedy clients: time to send the headers, time for a whole request, idle keep-alive. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxHeaderSize: number;
  /** Concurrent connections one process accepts; more are refused at once. */
  readonly maxConnections: number;
  /** Serve HTTPS directly with this certificate and key (PEM files). */
  readonly tls: { certFile: string; keyFile: string } | null;
  /** Refuse /api requests that did not arrive over HTTPS (directly or via a trusted proxy). */
  readonly requireHttps: boolean;
  /** Origins allowed by CORS; empty: CORS off. */
  readonly corsOrigins: string[];
  /** The CSV import of people: its own body limit, and data rows at most. */
  readonly importBodyLimit: number;
  readonly importMaxRows: number;
  /** `groupadmin changes prune` deletes change records older than this. */
  readonly changesRetentionDays: number;
  readonly webhooksAllowPrivate: boolean;
  /** Seconds to wait after the 1st, 2nd, ... failure of a webhook message; disabled after the last. */
  readonly webhookRetrySchedule: readonly number[];
  /** The time zone of the tenant a first start creates: `TZ` when it names an IANA zone, else UTC. */
  readonly firstTenantTimeZone: string;
  /** A browser's session ends after this long without a request; one asked to be remembered after the second. */
  readonly sessionIdleMs: number;
  readonly sessionRememberMs: number;
  readonly mail: MailConfig;
}

/** Mail (the mail module): where it goes, how it looks, and its limits. */
export interface MailConfig {
  /** null: mail is held in the outbox. */
  readonly smtpUrl: string | null;
  /** The From header: always this address; only the shown name changes per mail. */
  readonly from: { readonly name: string; readonly address: string };
  /** `https://{tenant}.example.org`: the tenant's app address in mails. */
  readonly publicUrl: string;
  readonly messagesPerHour: number;
  readonly recipientsPerDay: number;
  readonly retentionDays: number;
  /** Seconds to wait after the 1st, 2nd, ... failure of a mail; failed after the last. */
  readonly retrySchedule: readonly number[];
}

/** 1 min, 5 min, 30 min, 2 h, 6 h, then failed. */
export const DEFAULT_MAIL_RETRY_SCHEDULE: readonly number[] = Object.freeze([60, 300, 1800, 7200, 21_600]);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const describe = (schema: Record<string, unknown>): string => {
  if (schema.anyOf) {
    return (schema.anyOf as Record<string, unknown>[]).map((option) => (option.const ? `"${String(option.const)}"` : describe(option))).join(' or ');
  }
  if (schema.type === 'integer') return `an integer from ${schema.minimum} to ${schema.maximum}`;
  if (schema.type === 'boolean') return 'true or false';
  if (schema.pattern) return `a string matching ${schema.pattern}`;
  return 'a non-empty string';
};

function parseTrustProxy(raw: string): TrustProxy {
  const value = raw.trim().toLowerCase();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  const valid = entries.every((entry) => {
    const [address, bits, ...rest] = entry.split('/');
    if (rest.length > 0 || !address || isIP(address) === 0) return false;
    return bits === undefined || /^\d{1,3}$/.test(bits);
  });
  if (entries.length === 0 || !valid) {
    throw new ConfigError(
      `Invalid configuration: TRUST_PROXY must be true, false, a hop count, or a comma-separated list of addresses/CIDRs (got "${raw}")`,
    );
  }
  return entries;
}

function parseTls(certFile: string, keyFile: string): Config['tls'] {
  if (certFile === '' && keyFile === '') return null;
  if (certFile === '' || keyFile === '') {
    throw new ConfigError('Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  for (const [name, file] of [['TLS_CERT_FILE', certFile], ['TLS_KEY_FILE', keyFile]] as const) {
    try {
      accessSync(file, constants.R_OK);
    } catch {
      throw new ConfigError(`Invalid configuration: ${name} must be a readable file (got "${file}")`);
    }
  }
  return { certFile: resolve(certFile), keyFile: resolve(keyFile) };
}

function parseOrigins(raw: string): string[] {
  const origins = raw.split(',').map((origin) => origin.trim()).filter(Boolean);
  for (const origin of origins) {
    if (!/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i.test(origin)) {
      throw new ConfigError(`Invalid configuration: CORS_ORIGINS must list origins like https://app.example.org (got "${origin}")`);
    }
  }
  return origins;
}

/**
 * The IANA zone that `TZ` names (the C library also takes ":Europe/Zurich"), or UTC when it names
 * none (unset, a POSIX rule such as "CET-1CEST", a file path): a club's "today" must follow its
 * own summer time.
 */
function zoneOfTz(tz: string | undefined): string {
  return canonicalTimeZone((tz ?? '').replace(/^:/, '')) ?? 'UTC';
}

/** Reads the environment into a frozen, typed Config, or throws a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const raw = env[key];
    if (raw !== undefined && (raw !== '' || MAY_BE_EMPTY.has(key))) input[key] = raw;
  }
  const withDefaults = Value.Default(EnvSchema, input);
  const converted = Value.Convert(EnvSchema, withDefaults) as Record<string, unknown>;
  for (const error of Value.Errors(EnvSchema, converted)) {
    const key = error.instancePath.split('/')[1] ?? '';
    const schema = (EnvSchema.properties as unknown as Record<string, Record<string, unknown>>)[key] ?? {};
    throw new ConfigError(`Invalid configuration: ${key} must be ${describe(schema)} (got "${env[key]}")`);
  }
  const parsed = converted as Env;
  const defaultTenant = parsed.DEFAULT_TENANT.trim().toLowerCase();
  if (defaultTenant !== '' && !isValidSlug(defaultTenant)) {
    throw new ConfigError(`Invalid configuration: DEFAULT_TENANT must be a tenant slug (got "${env.DEFAULT_TENANT}")`);
  }
  for (const key of ['DATABASE_URL', 'REDIS_URL'] as const) {
    const url = parsed[key];
    if (url !== '' && !URL.canParse(url)) {
      throw new ConfigError(`Invalid configuration: ${key} must be a URL (got a value that is not one)`);
    }
  }
  const tls = parseTls(parsed.TLS_CERT_FILE, parsed.TLS_KEY_FILE);
  const webhookRetrySchedule = parseRetrySchedule(parsed.WEBHOOK_RETRY_SCHEDULE);
  if (!webhookRetrySchedule) {
    throw new ConfigError(`Invalid configuration: WEBHOOK_RETRY_SCHEDULE must be whole seconds separated by commas (got "${env.WEBHOOK_RETRY_SCHEDULE}")`);
  }
  const corsOrigins = parseOrigins(parsed.CORS_ORIGINS);
  const mail = parseMail(parsed, env);
  if (parsed.DATABASE_URL !== '' && !/^postgres(ql)?:/.test(parsed.DATABASE_URL)) {
    throw new ConfigError('Invalid configuration: DATABASE_URL must be a postgres:// URL');
  }
  return Object.freeze({
    port: parsed.PORT,
    host: parsed.HOST,
    dataDir: resolve(parsed.DATA_DIR),
    databaseUrl: parsed.DATABASE_URL || null,
    redisUrl: parsed.REDIS_URL || null,
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    serviceDomain: parsed.SERVICE_DOMAIN.replace(/\.$/, ''),
    defaultTenant: defaultTenant || null,
    rateLimitAuthenticated: parsed.RATE_LIMIT_AUTHENTICATED,
    rateLimitUnauthenticated: parsed.RATE_LIMIT_UNAUTHENTICATED,
    rateLimitCalendar: parsed.RATE_LIMIT_CALENDAR,
    bodyLimit: parsed.BODY_LIMIT,
    trustProxy: parseTrustProxy(parsed.TRUST_PROXY),
    tokenPrefix: parsed.TOKEN_PREFIX,
    logLevel: parsed.LOG_LEVEL,
    tenantCacheSize: parsed.TENANT_CACHE_SIZE,
    workers: parsed.WORKERS === 'auto' ? availableParallelism() : parsed.WORKERS,
    shutdownTimeoutMs: parsed.SHUTDOWN_TIMEOUT_MS,
    headersTimeoutMs: parsed.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: parsed.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: parsed.KEEP_ALIVE_TIMEOUT_MS,
    maxHeaderSize: parsed.MAX_HEADER_SIZE,
    maxConnections: parsed.MAX_CONNECTIONS,
    tls,
    requireHttps: parsed.REQUIRE_HTTPS,
    corsOrigins,
    importBodyLimit: parsed.IMPORT_BODY_LIMIT,
    importMaxRows: parsed.IMPORT_MAX_ROWS,
    changesRetentionDays: parsed.CHANGES_RETENTION_DAYS,
    webhooksAllowPrivate: parsed.WEBHOOKS_ALLOW_PRIVATE,
    webhookRetrySchedule,
    firstTenantTimeZone: zoneOfTz(env.TZ),
    sessionIdleMs: parsed.SESSION_IDLE_MINUTES * 60_000,
    sessionRememberMs: parsed.SESSION_REMEMBER_DAYS * 86_400_000,
    mail,
  });
}

function parseMail(parsed: Env, env: NodeJS.ProcessEnv): MailConfig {
  const smtpUrl = parsed.SMTP_URL.trim();
  if (smtpUrl !== '' && !/^smtps?:\/\/[^/]+/i.test(smtpUrl)) {
    // The value may hold a password: never echoed.
    throw new ConfigError('Invalid configuration: SMTP_URL must be an smtp:// or smtps:// URL');
  }
  const retrySchedule = parsed.MAIL_RETRY_SCHEDULE.trim() === '' ? [...DEFAULT_MAIL_RETRY_SCHEDULE] : parseRetrySchedule(parsed.MAIL_RETRY_SCHEDULE);
  if (!retrySchedule) {
    throw new ConfigError(`Invalid configuration: MAIL_RETRY_SCHEDULE must be whole seconds separated by commas (got "${env.MAIL_RETRY_SCHEDULE}")`);
  }
  const domain = parsed.SERVICE_DOMAIN.replace(/\.$/, '');
  const from = parseMailFrom(parsed.MAIL_FROM.trim() || `groupadmin <no-reply@${domain}>`);
  if (!from) throw new ConfigError(`Invalid configuration: MAIL_FROM must be an address, or a name and <address> (got "${env.MAIL_FROM}")`);
  const defaultUrl = domain === 'localhost' ? `http://{tenant}.localhost:${parsed.PORT}` : `https://{tenant}.${domain}`;
  const publicUrl = (parsed.PUBLIC_URL.trim() || defaultUrl).replace(/\/+$/, '');
  if (!URL.canParse(publicUrl.replaceAll('{tenant}', 'tenant')) || !/^https?:\/\//.test(publicUrl)) {
    throw new ConfigError(`Invalid configuration: PUBLIC_URL must be an http:// or https:// URL (got "${env.PUBLIC_URL}")`);
  }
  return {
    smtpUrl: smtpUrl || null,
    from,
    publicUrl,
    messagesPerHour: parsed.MESSAGES_PER_HOUR,
    recipientsPerDay: parsed.MAIL_RECIPIENTS_PER_DAY,
    retentionDays: parsed.MAIL_RETENTION_DAYS,
    retrySchedule,
  };
}

/** `name <address>` or a bare address. */
function parseMailFrom(raw: string): MailConfig['from'] | null {
  const match = /^(?:"?([^"<>]*?)"?\s*<([^<>\s]+@[^<>\s]+)>|([^<>\s]+@[^<>\s]+))$/.exec(raw);
  if (!match) return null;
  return { name: (match[1] ?? '').trim(), address: match[2] ?? match[3]! };
}
