import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: null,
      redisUrl: null,
      serviceDomain: 'localhost',
      defaultTenant: 'demo',
      rateLimitAuthenticated: 60,
      rateLimitUnauthenticated: 10,
      bodyLimit: 65536,
      trustProxy: false,
      tokenPrefix: '',
      logLevel: 'info',
      tenantCacheSize: 100,
    });
    expect(config.dataDir.endsWith('/data')).toBe(true);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('converts values from their text form', () => {
    const config = loadConfig({ PORT: '8080', RATE_LIMIT_AUTHENTICATED: '5', TOKEN_PREFIX: 'ga_', DEFAULT_TENANT: '' });
    expect(config.port).toBe(8080);
    expect(config.rateLimitAuthenticated).toBe(5);
    expect(config.tokenPrefix).toBe('ga_');
    expect(config.defaultTenant).toBeNull();
    expect(loadConfig({ PORT: '' }).port).toBe(3000);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['RATE_LIMIT_UNAUTHENTICATED', '0'],
    ['BODY_LIMIT', '12.5'],
    ['LOG_LEVEL', 'loud'],
    ['TOKEN_PREFIX', 'a|b'],
    ['SERVICE_DOMAIN', 'Example.COM'],
    ['DEFAULT_TENANT', 'www'],
    ['TRUST_PROXY', 'not-an-address'],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['REDIS_URL', 'not a url'],
    ['WORKERS', '0'],
    ['WORKERS', 'many'],
  ])('refuses %s=%s with one line naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    expect(message).not.toContain('\n');
  });

  it('reads WORKERS as a count or "auto" (one per CPU)', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ WORKERS: '3' }).workers).toBe(3);
    expect(loadConfig({ WORKERS: 'auto' }).workers).toBe(availableParallelism());
  });

  it('reads TRUST_PROXY as a switch, a hop count or a list of addresses', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' }).trustProxy).toEqual(['10.0.0.1', '192.168.0.0/16']);
  });

  it('takes the first tenant\'s time zone from TZ when it names an IANA zone, else UTC', () => {
    expect(loadConfig({}).firstTenantTimeZone).toBe('UTC');
    expect(loadConfig({ TZ: 'Europe/Zurich' }).firstTenantTimeZone).toBe('Europe/Zurich');
    expect(loadConfig({ TZ: ':america/new_york' }).firstTenantTimeZone).toBe('America/New_York');
    for (const tz of ['CET-1CEST', '/etc/localtime', '+01:00', 'Mars/Olympus', '']) expect(loadConfig({ TZ: tz }).firstTenantTimeZone, tz).toBe('UTC');
  });

  it('reads the mail settings: held without SMTP_URL, From and the app address with their defaults', () => {
    const mail = loadConfig({}).mail;
    expect(mail).toEqual({
      smtpUrl: null,
      from: { name: 'groupadmin', address: 'no-reply@localhost' },
      publicUrl: 'http://{tenant}.localhost:3000',
      messagesPerHour: 20,
      recipientsPerDay: 5000,
      retentionDays: 30,
      retrySchedule: [60, 300, 1800, 7200, 21_600],
    });
    expect(loadConfig({ SERVICE_DOMAIN: 'clubs.example.org' }).mail.publicUrl).toBe('https://{tenant}.clubs.example.org');
    expect(loadConfig({ SERVICE_DOMAIN: 'clubs.example.org' }).mail.from.address).toBe('no-reply@clubs.example.org');
    const set = loadConfig({
      SMTP_URL: 'smtps://u:p%40ss@mail.example.org:465',
      MAIL_FROM: '"Pfadi Mail" <post@pfadi.example>',
      PUBLIC_URL: 'https://app.example.org/{tenant}/',
      MAIL_RETRY_SCHEDULE: '1,2',
    }).mail;
    expect(set).toMatchObject({ smtpUrl: 'smtps://u:p%40ss@mail.example.org:465', from: { name: 'Pfadi Mail', address: 'post@pfadi.example' }, publicUrl: 'https://app.example.org/{tenant}', retrySchedule: [1, 2] });
    expect(loadConfig({ MAIL_FROM: 'post@pfadi.example' }).mail.from).toEqual({ name: '', address: 'post@pfadi.example' });
  });

  it('refuses mail settings it cannot use, without echoing an SMTP password', () => {
    expect(() => loadConfig({ SMTP_URL: 'http://user:hunter2@mail.example.org' })).toThrow(ConfigError);
    expect(() => loadConfig({ SMTP_URL: 'mail.example.org:hunter2' })).toThrow(/^Invalid configuration: SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL$/);
    expect(() => loadConfig({ MAIL_FROM: 'not an address' })).toThrow(/MAIL_FROM/);
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://x' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ MAIL_RETRY_SCHEDULE: 'soon' })).toThrow(/MAIL_RETRY_SCHEDULE/);
  });
});
