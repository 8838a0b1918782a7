import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { attemptDelivery } from '../../../src/modules/webhooks/delivery.js';
import { newWebhookSecret } from '../../../src/modules/webhooks/secret.js';
import { signMessage } from '../../../src/modules/webhooks/signing.js';

interface Received { headers: IncomingMessage['headers']; body: string }

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => {
    server.closeAllConnections();
    server.close(done);
  })));
});

/**
 * A real receiver on 127.0.0.1 answering each request with the next status ('hang' never answers;
 * 'endless' sends 200 at once and a body that never ends).
 */
async function receiver(answers: (number | 'hang' | 'endless')[]): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const answer = answers.shift() ?? 204;
      if (answer === 'endless') {
        response.writeHead(200);
        response.write('still writing');
      } else if (answer !== 'hang') response.writeHead(answer).end('ignored');
    });
  });
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { port: (server.address() as AddressInfo).port, received };
}

const body = JSON.stringify({ type: 'ping', timestamp: '2026-11-24T10:00:00.000Z', data: {} });
const headers = signMessage(newWebhookSecret(), 'msg_42', new Date(), body);

describe('one webhook delivery attempt', () => {
  it('sends the signed body to the pinned address, with the URL host in the Host header', async () => {
    const { port, received } = await receiver([204]);
    const outcome = await attemptDelivery(new URL(`http://hooks.invalid:${port}/in?x=1`), ['127.0.0.1'], headers, body);
    expect(outcome).toMatchObject({ statusCode: 204, error: null, succeeded: true });
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toBe(body);
    expect(received[0]!.headers).toMatchObject({
      host: `hooks.invalid:${port}`,
      'content-type': 'application/json',
      'webhook-id': 'msg_42',
      'webhook-timestamp': headers['webhook-timestamp'],
      'webhook-signature': headers['webhook-signature'],
    });
  });

  it('counts any status outside 2xx as a failure, with the status as the reason', async () => {
    const { port } = await receiver([500, 302]);
    const url = new URL(`http://127.0.0.1:${port}/`);
    expect(await attemptDelivery(url, ['127.0.0.1'], headers, body)).toMatchObject({ statusCode: 500, error: 'HTTP 500', succeeded: false });
    expect(await attemptDelivery(url, ['127.0.0.1'], headers, body)).toMatchObject({ statusCode: 302, error: 'HTTP 302', succeeded: false });
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const { port, received } = await receiver(['hang']);
    const outcome = await attemptDelivery(new URL(`http://127.0.0.1:${port}/`), ['127.0.0.1'], headers, body, 300);
    expect(outcome).toMatchObject({ statusCode: null, succeeded: false, error: 'No answer within 0.3 s.' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(received).toHaveLength(1);
  });

  it('counts a 2xx status line in time as success, whatever the body does after it', async () => {
    const { port } = await receiver(['endless']);
    const outcome = await attemptDelivery(new URL(`http://127.0.0.1:${port}/`), ['127.0.0.1'], headers, body, 300);
    expect(outcome).toMatchObject({ statusCode: 200, error: null, succeeded: true });
    expect(outcome.durationMs).toBeLessThan(300);
  });

  it('reports a refused connection without internal detail', async () => {
    const { port } = await receiver([]);
    await new Promise((done) => servers.pop()!.close(done));
    const outcome = await attemptDelivery(new URL(`http://127.0.0.1:${port}/`), ['127.0.0.1'], headers, body);
    expect(outcome).toMatchObject({ statusCode: null, succeeded: false, error: 'The connection was refused.' });
  });
});
