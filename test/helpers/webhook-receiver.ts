import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver does with a request: answer a status, or hang (never answer). */
export type Behaviour = (request: Received, index: number) => number | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How many requests were open at the same moment, at most. */
  maxConcurrent(): number;
  setBehaviour(behaviour: Behaviour): void;
  /** Resolves once `count` requests arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records every webhook request it gets. */
export async function startReceiver(behaviour: Behaviour = () => 200, path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  let current = behaviour;
  let open = 0;
  let maxOpen = 0;
  const server: Server = createServer((req, res) => {
    open += 1;
    maxOpen = Math.max(maxOpen, open);
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry = { headers: req.headers, body, at: Date.now() };
      received.push(entry);
      const answer = current(entry, received.length - 1);
      if (answer === 'hang') return;
      // Held open a little: two deliveries of one webhook at once would overlap here.
      setTimeout(() => {
        open -= 1;
        res.writeHead(answer).end();
      }, 20);
    });
    res.on('close', () => {
      if (!res.writableEnded) open -= 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    maxConcurrent: () => maxOpen,
    setBehaviour: (next) => (current = next),
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
