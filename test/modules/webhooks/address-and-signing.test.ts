import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { checkWebhookAddress, isPublicAddress, type Resolver } from '../../../src/modules/webhooks/address.js';
import { newWebhookSecret } from '../../../src/modules/webhooks/secret.js';
import { signMessage } from '../../../src/modules/webhooks/signing.js';

const answers = (table: Record<string, string[]>): Resolver => async (host) => {
  const found = table[host];
  if (found === undefined) throw new Error(`ENOTFOUND ${host}`);
  return found;
};

describe('webhook addresses', () => {
  it('refuses loopback, private, link-local, unique-local and other special addresses', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1',
      '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'ff02::1', '::7f00:1', '::a00:1']) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:2800:220:1::', '::ffff:8.8.8.8']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it('accepts an https URL whose host resolves only to public addresses, and returns them for pinning', async () => {
    const check = await checkWebhookAddress('https://hooks.example.org/in', false, answers({ 'hooks.example.org': ['93.184.216.34', '2606:2800:220:1::'] }));
    expect(check).toMatchObject({ ok: true, addresses: ['93.184.216.34', '2606:2800:220:1::'] });
  });

  it('refuses http, credentials, unparsable URLs and names that do not resolve', async () => {
    const resolver = answers({ 'hooks.example.org': ['93.184.216.34'] });
    for (const url of ['http://hooks.example.org/in', 'ftp://hooks.example.org/', 'https://user:pw@hooks.example.org/', 'not a url', 'https://nowhere.example.org/']) {
      expect((await checkWebhookAddress(url, false, resolver)).ok, url).toBe(false);
    }
  });

  it('refuses a name with one private address among public ones, and literal private addresses', async () => {
    const resolver = answers({ 'mixed.example.org': ['93.184.216.34', '10.0.0.5'] });
    expect((await checkWebhookAddress('https://mixed.example.org/', false, resolver)).ok).toBe(false);
    expect((await checkWebhookAddress('https://127.0.0.1:8443/', false, resolver)).ok).toBe(false);
    expect((await checkWebhookAddress('https://[::1]/', false, resolver)).ok).toBe(false);
  });

  it('resolves real names through the system resolver: localhost is refused', async () => {
    expect((await checkWebhookAddress('https://localhost/', false)).ok).toBe(false);
  });

  it('with private targets allowed, accepts http and private addresses', async () => {
    const check = await checkWebhookAddress('http://127.0.0.1:9999/hook', true);
    expect(check).toMatchObject({ ok: true, addresses: ['127.0.0.1'] });
    expect((await checkWebhookAddress('ftp://127.0.0.1/', true)).ok).toBe(false);
  });
});

describe('webhook secrets and signatures', () => {
  it('makes whsec_ secrets of 32 random bytes, never the same twice', () => {
    const first = newWebhookSecret();
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(first.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(first);
  });

  it('signs "<id>.<timestamp>.<body>" with the decoded secret, as a Standard Webhooks receiver verifies it', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'ping', timestamp: new Date().toISOString(), data: {} });
    const headers = signMessage(secret, 'msg_1', new Date(), body);
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`msg_1.${headers['webhook-timestamp']}.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('ping', 'pong'), headers)).toThrow();
  });
});
