import type { KyselyPlugin } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REFUSED_ADDRESS } from '../../../src/modules/webhooks/message.js';
import { startWebhookWorker } from '../../../src/modules/webhooks/worker.js';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';
import { startReceiver, type Received, type Receiver } from '../../helpers/webhook-receiver.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type Worker = ReturnType<typeof startWebhookWorker>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The webhooks' delivery worker against a real HTTP receiver on 127.0.0.1, on the
 * suite's storage (SQLite, or PostgreSQL in CI's second pass).
 */
describe('webhook deliveries', () => {
  let t: TestApp;
  let receiver: Receiver;
  let root: number;
  let token: string;
  const workers: Worker[] = [];
  const errors: unknown[] = [];
  const call = (method: Method, url: string, payload?: object) =>
    t.app.inject({ method, url: `/api${url}`, headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  const work = (schedule: number[], allowPrivate = true) => {
    const worker = startWebhookWorker({ storage: t.storage, allowPrivate, schedule, pollMs: 50, onError: (err) => errors.push(err) });
    workers.push(worker);
    return worker;
  };
  const createWebhook = async (body: object = {}) => (await call('POST', '/webhooks', { url: receiver.url, ...body })).json().data.webhook as { id: number; secret: string };
  const createGroup = async (name: string) => (await call('POST', '/groups', { parent_id: root, name })).json().data.group.id as number;
  const bodies = (received: Received[]) => received.map((request) => JSON.parse(request.body) as { type: string; data: { seq: number; entity: string; entity_id: number } });

  beforeEach(async () => {
    t = await buildTestApp({ WEBHOOKS_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver();
    root = await t.rootGroupId('demo');
    const admin = await t.addUser('demo', { username: 'admin' });
    await t.grant('demo', admin.id, root, 'admin');
    token = await t.login('demo', 'admin', PASSWORD);
    errors.length = 0;
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await receiver.close();
    await t.close();
    expect(errors).toEqual([]);
  });

  it('sends the changes committed after the webhook was created, in seq order, signed', async () => {
    await createGroup('Before');
    const { id, secret } = await createWebhook({ entities: ['group', 'person'] });
    const groups = [await createGroup('Troop 1'), await createGroup('Troop 2')];
    expect((await call('PATCH', `/groups/${groups[0]}`, { name: 'Troop One' })).statusCode).toBe(200);
    // A role type is not among the webhook's entities: never sent.
    expect((await call('POST', '/role-types', { key: 'cook', permission: 'read', scope: 'group' })).statusCode).toBe(201);
    const person = (await call('POST', '/people', { firstname: 'Kim', lastname: 'Kid', membership: { group_id: groups[1], role_type: 'member' } })).json().data.person.id;
    work([1]);
    const received = await receiver.waitFor(4);
    await sleep(300);
    expect(receiver.received).toHaveLength(4);
    const messages = bodies(received);
    expect(messages.map((m) => `${m.type}:${m.data.entity_id}`)).toEqual([`group.created:${groups[0]}`, `group.created:${groups[1]}`, `group.updated:${groups[0]}`, `person.created:${person}`]);
    const seqs = messages.map((m) => m.data.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const verifier = new Webhook(secret);
    for (const request of received) {
      const body = JSON.parse(request.body);
      expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
      expect(Object.keys(body.data)).toEqual(['seq', 'entity', 'entity_id', 'action']);
      expect(verifier.verify(request.body, request.headers as Record<string, string>)).toEqual(body);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Number(request.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    }
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(4);
    const log = (await call('GET', `/webhooks/${id}/deliveries`)).json().data.deliveries;
    expect(log.map((d: { seq: number; status_code: number }) => [d.seq, d.status_code])).toEqual(seqs.reverse().map((seq) => [seq, 200]));
  });

  it('retries a failing message with the same webhook-id and holds the later ones back until it succeeds', async () => {
    receiver.setBehaviour((_request, index) => (index < 2 ? 500 : 200));
    await createWebhook();
    const first = await createGroup('First');
    const second = await createGroup('Second');
    work([1, 1, 1]);
    const received = await receiver.waitFor(4);
    await sleep(1_500);
    expect(receiver.received).toHaveLength(4);
    const ids = received.map((request) => request.headers['webhook-id']);
    expect(ids.slice(0, 3)).toEqual([ids[0], ids[0], ids[0]]);
    expect(ids[3]).not.toBe(ids[0]);
    expect(bodies(received).map((m) => m.data.entity_id)).toEqual([first, first, first, second]);
    // About a second (the schedule, with its jitter) between the attempts.
    expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(750);
  });

  it('disables the webhook after the last retry fails, and resumes at that message when enabled again', async () => {
    receiver.setBehaviour(() => 500);
    const { id } = await createWebhook();
    const group = await createGroup('Troop');
    work([1]);
    await receiver.waitFor(2);
    let webhook = (await call('GET', `/webhooks/${id}`)).json().data.webhook;
    for (let i = 0; i < 100 && webhook.enabled; i += 1) {
      await sleep(50);
      webhook = (await call('GET', `/webhooks/${id}`)).json().data.webhook;
    }
    expect(webhook).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    const log = (await call('GET', `/webhooks/${id}/deliveries`)).json().data.deliveries;
    expect(log.map((d: { status_code: number; next_retry_at: string | null }) => [d.status_code, d.next_retry_at === null])).toEqual([
      [500, true],
      [500, false],
    ]);
    await sleep(300);
    expect(receiver.received).toHaveLength(2);

    receiver.setBehaviour(() => 204);
    expect((await call('PATCH', `/webhooks/${id}`, { enabled: true })).statusCode).toBe(200);
    const received = await receiver.waitFor(3);
    expect(received[2]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
    expect(bodies(received)[2]!.data.entity_id).toBe(group);
  });

  it('checks the address again at delivery: a refused one gets no connection', async () => {
    const { id } = await createWebhook();
    await createGroup('Troop');
    work([60], false);
    let log: { error: string; status_code: number | null }[] = [];
    for (let i = 0; i < 100 && log.length === 0; i += 1) {
      await sleep(50);
      log = (await call('GET', `/webhooks/${id}/deliveries`)).json().data.deliveries;
    }
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status_code: null, error: REFUSED_ADDRESS });
    expect(receiver.received).toHaveLength(0);
  });

  it('serves every webhook of every tenant, not only the first few', async () => {
    await t.addTenant('other');
    const otherRoot = await t.rootGroupId('other');
    const otherAdmin = await t.addUser('other', { username: 'admin' });
    await t.grant('other', otherAdmin.id, otherRoot, 'admin');
    const otherToken = await t.login('other', 'admin', PASSWORD);
    // More idle webhooks than the worker sends to at once (8), in the first tenant...
    for (let i = 0; i < 10; i += 1) await createWebhook({ url: `${receiver.url}?idle=${i}`, entities: ['event'] });
    // ...and one with work in another tenant, and in this one.
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: { ...JSON_HEADERS, host: hostOf('other'), authorization: `Bearer ${otherToken}` },
      payload: { url: `${receiver.url}?tenant=other` },
    });
    expect(other.statusCode).toBe(201);
    await createWebhook({ url: `${receiver.url}?tenant=demo`, entities: ['group'] });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/groups',
      headers: { ...JSON_HEADERS, host: hostOf('other'), authorization: `Bearer ${otherToken}` },
      payload: { parent_id: otherRoot, name: 'Elsewhere' },
    });
    expect(created.statusCode).toBe(201);
    await createGroup('Here');
    work([1]);
    const received = await receiver.waitFor(2, 10_000);
    expect(bodies(received).map((m) => m.type)).toEqual(['group.created', 'group.created']);
  });

  it('gives its webhooks back at once when it stops mid-delivery, without counting a failure', async () => {
    receiver.setBehaviour((_request, index) => (index === 0 ? 'hang' : 200));
    const { id } = await createWebhook();
    await createGroup('Troop');
    const first = work([1]);
    await receiver.waitFor(1);
    const stopped = performance.now();
    await first.stop();
    expect(performance.now() - stopped).toBeLessThan(3_000);
    const row = await t.storage.tenantDb('demo').selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ lease_holder: null, failures: 0, next_attempt_at: null });
    expect((await call('GET', `/webhooks/${id}/deliveries`)).json().data.deliveries).toEqual([]);
    // Another instance sends it straight away (no lease to wait for), with the same id.
    work([1]);
    const received = await receiver.waitFor(2, 5_000);
    expect(received[1]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
  });

  it('when stopped in the middle of a look for due messages, runs no query after stop() returns', async () => {
    await createWebhook();
    await createGroup('Troop');
    // The storage as it is, except that the worker is stopped right when its look has found the
    // tenant and is about to read its due webhooks, and that the tenant's queries are noted.
    let stopped: Promise<void> | undefined;
    let returned = false;
    const late: string[] = [];
    const noteLate: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (returned) late.push(node.kind);
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    let worker: Worker | undefined;
    const storage = new Proxy(t.storage, {
      get(target, key, receiver) {
        if (key !== 'tenantDb') return Reflect.get(target, key, receiver);
        return (slug: string) => {
          stopped ??= worker!.stop().then(() => {
            returned = true;
          });
          return target.tenantDb(slug).withPlugin(noteLate);
        };
      },
    });
    worker = startWebhookWorker({ storage, allowPrivate: true, schedule: [1], pollMs: 50, onError: (err) => errors.push(err) });
    await vi.waitUntil(() => stopped !== undefined, { timeout: 5_000 });
    await stopped;
    await sleep(300);
    expect(late).toEqual([]);
    expect(receiver.received).toEqual([]);
  });

  it('with two workers on one storage, sends every message once, in order, one at a time', async () => {
    await createWebhook();
    work([1]);
    work([1]);
    const groups: number[] = [];
    for (let i = 0; i < 30; i += 1) groups.push(await createGroup(`Group ${i}`));
    const received = await receiver.waitFor(30);
    await sleep(500);
    expect(receiver.received).toHaveLength(30);
    expect(bodies(received).map((m) => m.data.entity_id)).toEqual(groups);
    expect(receiver.maxConcurrent()).toBe(1);
  });
});
