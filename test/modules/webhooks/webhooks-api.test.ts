import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The webhook endpoints, their permissions and the ping (docs/api/sync.md). */
describe('the webhook endpoints', () => {
  let t: TestApp;
  let receiver: Receiver;
  const tokens: Record<string, string> = {};
  const call = (who: string, method: Method, url: string, payload?: object, tenant = 'demo') =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf(tenant), authorization: `Bearer ${tokens[who]}` }, ...(payload ? { payload } : {}) });

  const setUp = async (env: Record<string, string>) => {
    t = await buildTestApp(env);
    receiver = await startReceiver();
    const root = await t.rootGroupId('demo');
    const admin = await t.addUser('demo', { username: 'admin' });
    await t.grant('demo', admin.id, root, 'admin');
    tokens.admin = await t.login('demo', 'admin', PASSWORD);
    const leader = await t.addUser('demo', { username: 'leader' });
    await t.grant('demo', leader.id, root, 'leader');
    tokens.leader = await t.login('demo', 'leader', PASSWORD);
    const narrow = await call('admin', 'POST', '/tokens', { name: 'reader', abilities: ['people:read', 'changes:read'] });
    tokens.narrow = narrow.json().data.plainTextToken ?? narrow.json().data.token;
  };
  afterEach(async () => {
    await receiver?.close();
    await t?.close();
  });

  describe('with WEBHOOKS_ALLOW_PRIVATE=true (a receiver on 127.0.0.1)', () => {
    beforeEach(() => setUp({ WEBHOOKS_ALLOW_PRIVATE: 'true' }));

    it('creates a webhook and shows its secret in that answer only', async () => {
      const created = await call('admin', 'POST', '/webhooks', { url: receiver.url, entities: ['person', 'membership'], description: 'Sync' });
      expect(created.statusCode).toBe(201);
      const webhook = created.json().data.webhook;
      expect(Object.keys(webhook)).toEqual(['id', 'url', 'entities', 'description', 'enabled', 'secret', 'created_at', 'updated_at']);
      expect(webhook).toMatchObject({ url: receiver.url, entities: ['person', 'membership'], description: 'Sync', enabled: true });
      expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(webhook.secret.slice(6), 'base64')).toHaveLength(32);

      const shown = (await call('admin', 'GET', `/webhooks/${webhook.id}`)).json().data.webhook;
      expect(shown).toEqual({ ...webhook, secret: undefined, disabled_reason: null });
      expect(JSON.stringify(shown)).not.toContain(webhook.secret);
      const listed = (await call('admin', 'GET', '/webhooks')).json().data;
      expect(listed.webhooks.map((w: { id: number }) => w.id)).toEqual([webhook.id]);
      expect(JSON.stringify(listed)).not.toContain(webhook.secret);
      // A second webhook gets a secret of its own.
      const other = (await call('admin', 'POST', '/webhooks', { url: receiver.url })).json().data.webhook;
      expect(other.secret).not.toBe(webhook.secret);
      expect(other.entities).toBeNull();
    });

    it('pages the list by cursor', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await call('admin', 'POST', '/webhooks', { url: `${receiver.url}?n=${i}` })).json().data.webhook.id);
      const first = (await call('admin', 'GET', '/webhooks?limit=2')).json().data;
      expect(first.webhooks.map((w: { id: number }) => w.id)).toEqual(ids.slice(0, 2));
      const second = (await call('admin', 'GET', `/webhooks?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)).json().data;
      expect(second.webhooks.map((w: { id: number }) => w.id)).toEqual(ids.slice(2));
      expect(second.next_cursor).toBeNull();
    });

    it('changes, disables, re-enables and deletes a webhook', async () => {
      const id = (await call('admin', 'POST', '/webhooks', { url: receiver.url })).json().data.webhook.id;
      const changed = await call('admin', 'PATCH', `/webhooks/${id}`, { url: `${receiver.url}/v2`, entities: ['event'], enabled: false });
      expect(changed.statusCode).toBe(200);
      expect(changed.json().data.webhook).toMatchObject({ url: `${receiver.url}/v2`, entities: ['event'], enabled: false, disabled_reason: null });
      // A webhook disabled after its last failure is marked so; enabling it starts its schedule afresh.
      await t.storage.tenantDb('demo').updateTable('webhooks').set({ enabled: 0, disabled_reason: 'failing', failures: 7 }).where('id', '=', id).execute();
      expect((await call('admin', 'GET', `/webhooks/${id}`)).json().data.webhook).toMatchObject({ enabled: false, disabled_reason: 'failing' });
      const enabled = (await call('admin', 'PATCH', `/webhooks/${id}`, { enabled: true })).json().data.webhook;
      expect(enabled).toMatchObject({ enabled: true, disabled_reason: null });
      const row = await t.storage.tenantDb('demo').selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.failures).toBe(0);

      expect((await call('admin', 'DELETE', `/webhooks/${id}`)).statusCode).toBe(204);
      for (const [method, url] of [['GET', `/webhooks/${id}`], ['PATCH', `/webhooks/${id}`], ['DELETE', `/webhooks/${id}`], ['GET', `/webhooks/${id}/deliveries`], ['POST', `/webhooks/${id}/test`], ['GET', '/webhooks/abc']] as const) {
        const answer = await call('admin', method, url, method === 'PATCH' ? { enabled: true } : undefined);
        expect(answer.statusCode, `${method} ${url}`).toBe(404);
        expect(answer.json().message).toBe('Webhook not found.');
      }
    });

    it('ignores Idempotency-Key on POST /webhooks (its answer holds the secret) and honours it on the ping', async () => {
      const post = (url: string, body?: object) =>
        t.app.inject({
          method: 'POST',
          url: `/api${url}`,
          headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens.admin}`, 'idempotency-key': `key-${url}` },
          ...(body ? { payload: body } : {}),
        });
      const first = await post('/webhooks', { url: receiver.url });
      const again = await post('/webhooks', { url: receiver.url });
      expect([first.statusCode, again.statusCode]).toEqual([201, 201]);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
      expect(again.json().data.webhook.id).not.toBe(first.json().data.webhook.id);
      const stored = await t.storage.tenantDb('demo').selectFrom('idempotency_keys').selectAll().execute();
      expect(JSON.stringify(stored)).not.toContain(first.json().data.webhook.secret);

      const id = first.json().data.webhook.id;
      const ping = await post(`/webhooks/${id}/test`);
      const replayed = await post(`/webhooks/${id}/test`);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.json()).toEqual(ping.json());
      expect(receiver.received).toHaveLength(1);
    });

    it('carries an ETag and honours If-Match on PATCH and DELETE', async () => {
      const created = await call('admin', 'POST', '/webhooks', { url: receiver.url, description: 'x'.repeat(10_000) });
      expect(created.statusCode).toBe(201);
      const id = created.json().data.webhook.id;
      expect(created.headers.etag).toBe('"1"');
      expect((await call('admin', 'GET', `/webhooks/${id}`)).headers.etag).toBe('"1"');
      const patch = (ifMatch: string, body: object) =>
        t.app.inject({ method: 'PATCH', url: `/api/webhooks/${id}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens.admin}`, 'if-match': ifMatch }, payload: body });
      const changed = await patch('"1"', { enabled: false });
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.etag).toBe('"2"');
      const stale = await patch('"1"', { enabled: true });
      expect(stale.statusCode).toBe(412);
      expect(stale.json()).toEqual({ success: false, message: 'The resource was changed by someone else.' });
      const staleDelete = await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${id}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens.admin}`, 'if-match': '"1"' } });
      expect(staleDelete.statusCode).toBe(412);
      expect((await call('admin', 'GET', `/webhooks/${id}`)).json().data.webhook.enabled).toBe(false);
    });

    it('sends a signed ping on POST /webhooks/{id}/test and logs it with the deliveries', async () => {
      const { id, secret } = (await call('admin', 'POST', '/webhooks', { url: receiver.url })).json().data.webhook;
      const pinged = await call('admin', 'POST', `/webhooks/${id}/test`);
      expect(pinged.statusCode).toBe(200);
      const delivery = pinged.json().data.delivery;
      expect(delivery).toMatchObject({ type: 'ping', seq: null, status_code: 200, error: null, next_retry_at: null });
      expect(receiver.received).toHaveLength(1);
      const [request] = receiver.received;
      expect(JSON.parse(request!.body)).toEqual({ type: 'ping', timestamp: expect.stringMatching(/Z$/), data: {} });
      expect(request!.headers['webhook-id']).toBe(delivery.message_id);
      // The receiver's side: the standardwebhooks package accepts the signature.
      const verified = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>);
      expect(verified).toEqual(JSON.parse(request!.body));

      receiver.setBehaviour(() => 503);
      const failed = (await call('admin', 'POST', `/webhooks/${id}/test`)).json().data.delivery;
      expect(failed).toMatchObject({ type: 'ping', status_code: 503 });
      expect(failed.error).toEqual(expect.any(String));
      const log = (await call('admin', 'GET', `/webhooks/${id}/deliveries`)).json().data;
      expect(log.deliveries.map((d: { id: number }) => d.id)).toEqual([failed.id, delivery.id]);
      expect(log.next_cursor).toBeNull();
    });
  });

  describe('with the default rules (https and public addresses only)', () => {
    beforeEach(() => setUp({}));

    it('refuses http:// and loopback, private, link-local and unique-local addresses with a 422 on url', async () => {
      const refused = [
        receiver.url,
        'http://example.com/hook',
        'https://127.0.0.1/hook',
        'https://10.1.2.3/hook',
        'https://192.168.0.10/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/hook',
        'https://[fd00::1]/hook',
        'https://[fe80::1]/hook',
        'https://[::ffff:127.0.0.1]/hook',
        'https://localhost/hook',
        'ftp://example.com/hook',
        'not a url',
        'https://[::7f00:1]/hook',
      ];
      for (const url of refused) {
        const answer = await call('admin', 'POST', '/webhooks', { url });
        expect(answer.statusCode, url).toBe(422);
        expect(answer.json()).toEqual({ success: false, message: 'The url must be a public https address.', errors: { url: ['The url must be a public https address.'] } });
      }
      const created = await call('admin', 'POST', '/webhooks', { url: 'https://93.184.215.14/hook' });
      expect(created.statusCode).toBe(201);
      const changed = await call('admin', 'PATCH', `/webhooks/${created.json().data.webhook.id}`, { url: 'https://10.0.0.1/' });
      expect(changed.statusCode).toBe(422);
      expect(changed.json().errors).toEqual({ url: ['The url must be a public https address.'] });
      expect(receiver.received).toHaveLength(0);
    });

    it('needs admin on the root and the webhooks:write ability on every endpoint', async () => {
      const id = (await call('admin', 'POST', '/webhooks', { url: 'https://93.184.215.14/hook' })).json().data.webhook.id;
      const endpoints: [Method, string, object?][] = [
        ['POST', '/webhooks', { url: 'https://93.184.215.14/other' }],
        ['GET', '/webhooks'],
        ['GET', `/webhooks/${id}`],
        ['PATCH', `/webhooks/${id}`, { enabled: false }],
        ['DELETE', `/webhooks/${id}`],
        ['GET', `/webhooks/${id}/deliveries`],
        ['POST', `/webhooks/${id}/test`],
      ];
      for (const [method, url, body] of endpoints) {
        const asLeader = await call('leader', method, url, body);
        expect(asLeader.statusCode, `leader ${method} ${url}`).toBe(403);
        expect(asLeader.json().message).toBe('This action is unauthorized.');
        const narrow = await call('narrow', method, url, body);
        expect(narrow.statusCode, `narrow ${method} ${url}`).toBe(403);
        expect(narrow.json().message).toBe('Invalid ability provided.');
      }
      const rows = await t.storage.tenantDb('demo').selectFrom('webhooks').selectAll().execute();
      expect(rows.map((row) => [Number(row.id), Boolean(row.enabled)])).toEqual([[id, true]]);
    });

    it('keeps webhooks per tenant', async () => {
      await t.addTenant('other');
      const root = await t.rootGroupId('other');
      const admin = await t.addUser('other', { username: 'admin' });
      await t.grant('other', admin.id, root, 'admin');
      tokens.other = await t.login('other', 'admin', PASSWORD);
      const id = (await call('admin', 'POST', '/webhooks', { url: 'https://93.184.215.14/hook' })).json().data.webhook.id;
      expect((await call('other', 'GET', `/webhooks/${id}`, undefined, 'other')).statusCode).toBe(404);
      expect((await call('other', 'GET', '/webhooks', undefined, 'other')).json().data.webhooks).toEqual([]);
      expect((await call('other', 'DELETE', `/webhooks/${id}`, undefined, 'other')).statusCode).toBe(404);
    });

    it('validates the body', async () => {
      const bad: object[] = [{}, { url: '' }, { url: 'https://93.184.215.14/', entities: ['nobody'] }, { url: 'https://93.184.215.14/', entities: ['person', 'person'] }, { url: 'https://93.184.215.14/', description: 5 }, { url: 'https://93.184.215.14/a\u0000b' }, { url: 'https://93.184.215.14/', description: 'x'.repeat(10_001) }];
      for (const body of bad) expect((await call('admin', 'POST', '/webhooks', body)).statusCode, JSON.stringify(body)).toBe(422);
      // No kind at all would send nothing while showing enabled: say so (null or no field: all kinds).
      const none = await call('admin', 'POST', '/webhooks', { url: 'https://93.184.215.14/', entities: [] });
      expect(none.statusCode).toBe(422);
      expect(none.json().errors).toEqual({ entities: ['The entities field must have at least 1 items.'] });
    });
  });
});
