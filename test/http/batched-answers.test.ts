import Fastify, { type FastifyInstance } from 'fastify';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import batchedAnswers from '../../src/http/batched-answers.js';
import { http } from '../helpers/processes.js';

describe('answers written in batches', () => {
  let app: FastifyInstance;
  afterEach(() => app.close());

  /** A route that notes when its answer is handed to the socket, next to a setImmediate of its own. */
  async function appNotingWrites(batched: boolean) {
    app = Fastify();
    if (batched) await app.register(batchedAnswers);
    const events: string[] = [];
    app.get('/x', (_request, reply) => {
      const end = reply.raw.end.bind(reply.raw) as (...args: unknown[]) => unknown;
      reply.raw.end = ((...args: unknown[]) => {
        events.push('written');
        return end(...args);
      }) as typeof reply.raw.end;
      setImmediate(() => events.push('end of turn'));
      reply.send({ ok: true });
    });
    return events;
  }

  it('writes an answer at the end of the turn it became ready in, not at once', async () => {
    const unbatched = await appNotingWrites(false);
    await app.inject('/x');
    await new Promise((resolve) => setImmediate(resolve));
    expect(unbatched).toEqual(['written', 'end of turn']);
    await app.close();

    const batched = await appNotingWrites(true);
    const response = await app.inject('/x');
    expect(response.json()).toEqual({ ok: true });
    expect(batched).toEqual(['end of turn', 'written']);
  });

  it('gives every request its own answer when many arrive together (real HTTP server)', async () => {
    app = Fastify();
    await app.register(batchedAnswers);
    app.get('/echo/:n', async (request) => ({ n: Number((request.params as { n: string }).n) }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const get = (n: number) => http(port, { path: `/echo/${n}`, agent }).then(({ status, body }) => ({ status, body }));
    try {
      const numbers = Array.from({ length: 200 }, (_, i) => i);
      const answers = await Promise.all(numbers.map(get));
      expect(answers).toEqual(numbers.map((n) => ({ status: 200, body: `{"n":${n}}` })));
    } finally {
      agent.destroy();
    }
  });

  it('still answers (with the error answer) when writing fails after the batch, and sends the rest', async () => {
    app = Fastify({ logger: false });
    await app.register(batchedAnswers);
    // A serializer that yields no string: Fastify refuses the payload while writing it.
    app.get('/broken', (_request, reply) => {
      reply.serializer(() => 42 as unknown as string).send({ any: 'thing' });
    });
    app.get('/fine', async () => ({ fine: true }));
    const [broken, fine] = await Promise.all([app.inject('/broken'), app.inject('/fine')]);
    expect(broken.statusCode).toBe(500);
    expect(broken.json()).toMatchObject({ code: 'FST_ERR_REP_INVALID_PAYLOAD_TYPE' });
    expect(fine.json()).toEqual({ fine: true });
  });
});
