import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, type World } from '../../helpers/events.js';
import { startTestMailWorker } from '../../helpers/mail-worker.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { isMinor } from '../../../src/modules/messages/recipients.js';
import { nextDay, startOfDay } from '../../../src/modules/messages/tenant-day.js';

/** The limits of messages (per sender and hour, per tenant and day) and what delivery makes of a recipient. */
describe('message limits and delivery', () => {
  let sink: SmtpSink;
  let w: World;
  let pair: number;
  let single: number;

  beforeAll(async () => {
    sink = await startSmtpSink();
    const t = await buildTestApp({ SMTP_URL: sink.url, MESSAGES_PER_HOUR: '2', MAIL_RECIPIENTS_PER_DAY: '5' });
    w = await buildWorld(t);
    startTestMailWorker(t);
    const group = async (name: string) => (await w.call('admin', 'POST', '/groups', { parent_id: w.region, name })).json().data.group.id as number;
    pair = await group('Pair');
    single = await group('Single');
    await w.person(pair, 'Anna', 'Pair', { email: 'anna@example.com' });
    await w.person(pair, 'Bert', 'Pair', { email: 'refused@example.com' });
    await w.person(single, 'Carla', 'Single', { email: 'carla@example.com' });
  }, 60_000);
  afterAll(async () => {
    await w?.t.close();
    await sink?.close();
  });

  const send = (who: string, group_id: number) => w.call(who, 'POST', '/messages', { subject: 'Hello', body: 'Hello', to: { group_id } });

  it('marks a recipient failed when the SMTP server refuses the address', async () => {
    sink.answers.set('refused@example.com', { code: 550, message: 'No such user' });
    const answer = await send('admin', pair);
    expect(answer.statusCode, answer.body).toBe(201);
    const id = answer.json().data.message.id as number;
    const read = async () => (await w.call('admin', 'GET', `/messages/${id}`)).json().data.message;
    await waitFor(async () => (await read()).counts.queued === 0, 10_000);
    const message = await read();
    expect(message.counts).toEqual({ recipients: 2, queued: 0, sent: 1, failed: 1, unreachable: 0 });
    expect(message.recipients[1]).toMatchObject({ name: 'Bert Pair', state: 'failed', error: expect.any(String) });
    expect(sink.to('anna@example.com')).toHaveLength(1);
  });

  it('refuses a sender more than MESSAGES_PER_HOUR messages in 60 minutes, with Retry-After', async () => {
    expect((await send('admin', pair)).statusCode).toBe(201);
    const refused = await send('admin', single);
    expect(refused.statusCode).toBe(429);
    const body = refused.json();
    expect(Object.keys(body)).toEqual(['message', 'retry_after']);
    expect(body.message).toBe('Too Many Attempts.');
    expect(body.retry_after).toBeGreaterThan(3500);
    expect(body.retry_after).toBeLessThanOrEqual(3600);
    expect(refused.headers['retry-after']).toBe(String(body.retry_after));
  });

  it("refuses a message that would take the tenant's day past MAIL_RECIPIENTS_PER_DAY, whole, until midnight", async () => {
    // 4 recipients so far today: 2 more would be 6.
    const refused = await send('regionleader', pair);
    expect(refused.statusCode, refused.body).toBe(429);
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    expect(Math.abs(refused.json().retry_after - (midnight - now.getTime()) / 1000)).toBeLessThan(5);
    expect(await w.t.storage.tenantDb('demo').selectFrom('messages').select('id').where('sender_id', '=', w.ids.regionleader!).execute()).toEqual([]);
    // One more recipient fits.
    expect((await send('regionleader', single)).statusCode).toBe(201);
  });

  it('shows an erased sender and recipient as null and [erased]', async () => {
    const db = w.t.storage.tenantDb('demo');
    const [message] = await db.selectFrom('messages').select('id').where('sender_id', '=', w.ids.regionleader!).execute();
    await db.updateTable('messages').set({ sender_id: null }).where('id', '=', message!.id).execute();
    await db.updateTable('message_recipients').set({ person_id: null, name: '[erased]', email: null }).where('message_id', '=', message!.id).execute();
    const shown = (await w.call('admin', 'GET', `/messages/${message!.id}`)).json().data.message;
    expect(shown.sender).toBeNull();
    expect(shown.recipients[0]).toMatchObject({ person_id: null, name: '[erased]', email: null });
  });
});

/** The limits hold for requests that arrive at once (on PostgreSQL, each in its own transaction). */
describe('message limits at once', () => {
  let w: World;

  beforeAll(async () => {
    const t = await buildTestApp({ MESSAGES_PER_HOUR: '2', MAIL_RECIPIENTS_PER_DAY: '1000' });
    w = await buildWorld(t);
  }, 60_000);
  afterAll(async () => {
    await w?.t.close();
  });

  it('lets no more than MESSAGES_PER_HOUR of one sender through when they arrive together', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => w.call('admin', 'POST', '/messages', { subject: `Together ${i}`, body: 'b', to: { group_id: w.troopA } })),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 201, 429, 429, 429, 429]);
    expect(await w.t.storage.tenantDb('demo').selectFrom('messages').select('id').execute()).toHaveLength(2);
  });
});

describe('the days of a message', () => {
  it('counts a birthday after today minus 18 years as under 18, an unknown one as adult', () => {
    expect(isMinor('2008-12-07', '2026-12-07')).toBe(false);
    expect(isMinor('2008-12-08', '2026-12-07')).toBe(true);
    expect(isMinor(null, '2026-12-07')).toBe(false);
  });

  it("finds the tenant's midnight in its time zone", () => {
    expect(startOfDay('2026-12-07', 'Europe/Zurich').toISOString()).toBe('2026-12-06T23:00:00.000Z');
    expect(startOfDay('2026-07-07', 'Europe/Zurich').toISOString()).toBe('2026-07-06T22:00:00.000Z');
    expect(startOfDay('2026-12-07', 'UTC').toISOString()).toBe('2026-12-07T00:00:00.000Z');
    expect(startOfDay('2026-12-07', 'America/New_York').toISOString()).toBe('2026-12-07T05:00:00.000Z');
    expect(nextDay('2026-12-31')).toBe('2027-01-01');
  });
});
