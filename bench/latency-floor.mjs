// The latency floor of one Node.js process at a given CPU cost per request: a bare node:http
// server that burns a fixed CPU time per request and writes the answers of each event-loop turn
// together (as src/http/batched-answers.ts does), measured like `people-page` (32 connections,
// the load generator on the same machine). Whatever a real route does, at the same req/s its p99
// cannot be expected below this one's. Not part of `npm run bench`; see docs/benchmarks/README.md.
//
//   node bench/latency-floor.mjs [--cpu-us 500] [--connections 32] [--duration 10] [--bytes 25000]
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    'cpu-us': { type: 'string', default: '500' },
    connections: { type: 'string', default: '32' },
    duration: { type: 'string', default: '10' },
    bytes: { type: 'string', default: '25000' },
    serve: { type: 'boolean', default: false },
  },
});

if (values.serve) {
  const body = 'x'.repeat(Number(values.bytes));
  const costNs = BigInt(Number(values['cpu-us']) * 1000);
  let ready = [];
  const writeAll = () => {
    const batch = ready;
    ready = [];
    for (const response of batch) response.end(body);
  };
  const server = createServer((_request, response) => {
    const start = process.hrtime.bigint();
    while (process.hrtime.bigint() - start < costNs);
    response.setHeader('content-type', 'application/json');
    if (ready.length === 0) setImmediate(writeAll);
    ready.push(response);
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
} else {
  const child = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), '--serve']);
  const port = await new Promise((resolve) => child.once('message', resolve));
  const load = (duration) =>
    new Promise((resolve, reject) => {
      autocannon({ url: `http://127.0.0.1:${port}/`, connections: Number(values.connections), duration }, (err, result) => (err ? reject(err) : resolve(result)));
    });
  await load(3);
  const { requests, latency } = await load(Number(values.duration));
  child.kill();
  process.stdout.write(
    `${values['cpu-us']} us a request, ${values.connections} connections: ${Math.round(requests.average)} req/s, ` +
      `mean ${latency.mean} ms, p50 ${latency.p50}, p90 ${latency.p90}, p97.5 ${latency.p97_5}, p99 ${latency.p99} ms\n`,
  );
}
