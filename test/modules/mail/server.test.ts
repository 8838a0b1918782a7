import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, http, ROOT } from '../../helpers/processes.js';
import { waitFor } from '../../helpers/wait.js';
import { buildMailWorld, type MailWorld } from './helpers.js';

/**
 * The server process runs the mail worker beside the HTTP server: a reset mail committed by a
 * request of a server killed (SIGKILL) before it could send it goes out from the next server, once.
 * The servers run from the source (vite-node), on the test app's database.
 */
describe('mail with real server processes', () => {
  let w: MailWorld;
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await w.close();
  });

  const startServerProcess = async (env: Record<string, string>) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules/vite-node/vite-node.mjs'), join(ROOT, 'src/server.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: w.t.dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        RATE_LIMIT_UNAUTHENTICATED: '100000',
        MAIL_FROM: 'Groupadmin <no-reply@mail.example.org>',
        ...(w.t.config.databaseUrl ? { DATABASE_URL: w.t.config.databaseUrl } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const stop = async (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    };
    stops.push(async () => void (await stop('SIGKILL')));
    await waitFor(() => /Server listening at http:\/\/127\.0\.0\.1:\d+/.test(output) || child.exitCode !== null, 40_000, 50).catch(() => undefined);
    const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
    if (!match) throw new Error(`the server did not start:\n${output}`);
    return { port: Number(match[1]), stop, output: () => output };
  };

  it('sends the mail of a request whose server was killed after the commit, from the next server, once', async () => {
    w = await buildMailWorld();
    const closedPort = await freePort();
    // The first server cannot reach its SMTP server: it tries once and schedules a retry.
    const first = await startServerProcess({ SMTP_URL: `smtp://mailer:s3cret-pass@127.0.0.1:${closedPort}`, MAIL_RETRY_SCHEDULE: '1' });
    const answer = await http(first.port, {
      method: 'POST',
      path: '/api/password/forgot',
      headers: { host: 'demo.localhost', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com' }),
    });
    expect(answer.status).toBe(200);
    const db = w.t.storage.tenantDb('demo');
    await waitFor(async () => {
      const rows = await db.selectFrom('mails').select(['attempts', 'lease_holder']).execute();
      return rows.length === 1 && Number(rows[0]!.attempts) === 1 && rows[0]!.lease_holder === null;
    }, 15_000);
    await first.stop('SIGKILL');
    expect(w.sink.mails).toHaveLength(0);

    const second = await startServerProcess({ SMTP_URL: w.sink.url });
    const [received] = await w.sink.waitForMails(1, 15_000);
    expect(received!.envelope.to).toEqual(['admin@example.com']);
    expect(received!.parsed.text).toMatch(/#reset=[A-Za-z0-9_-]{43}/);
    await waitFor(async () => (await db.selectFrom('mails').select('state').executeTakeFirstOrThrow()).state === 'sent', 5_000);
    const stored = await db.selectFrom('mails').select(['text_body', 'message_id_header']).executeTakeFirstOrThrow();
    expect(stored.text_body).toContain('#reset=[removed]');
    expect(stored.text_body).not.toMatch(/#reset=[A-Za-z0-9_-]{43}/);
    expect(received!.parsed.messageId).toBe(stored.message_id_header);
    // A graceful stop stops the mail worker too.
    expect(await second.stop('SIGTERM')).toBe(0);
    expect(w.sink.mails).toHaveLength(1);
    expect(second.output()).not.toContain('mail: could not');
  }, 120_000);
});
