// A webhook receiver: verifies each message's signature, skips repeats, prints what changed.
// WEBHOOK_SECRET=whsec_... PORT=8080 node examples/webhook-receiver.mjs
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const verifier = new Webhook(process.env.WEBHOOK_SECRET);
const seen = new Set(); // message ids already handled (keep them in your database)

createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    let message;
    try {
      // Checks webhook-signature over "<webhook-id>.<webhook-timestamp>.<body>" and a timestamp
      // no older than 5 minutes; throws otherwise.
      message = verifier.verify(body, req.headers);
    } catch {
      res.writeHead(401).end();
      return;
    }
    const id = req.headers['webhook-id'];
    if (!seen.has(id)) {
      seen.add(id);
      // At least once, in order: a message may come twice (same webhook-id), never out of order.
      if (message.type === 'ping') console.log('ping');
      else console.log(`${message.data.seq} ${message.type} ${message.data.entity_id}`);
    }
    res.writeHead(204).end(); // any 2xx within 10 s; anything else is retried
  });
}).listen(Number(process.env.PORT ?? 8080), '127.0.0.1');
