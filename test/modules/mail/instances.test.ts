import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, ROOT } from '../../helpers/processes.js';
import { waitFor } from '../../helpers/wait.js';
import { buildMailWorld, newMail, type MailWorld } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Several instances on one outbox, and instances that die: every mail goes out, once. */
describe('mail delivery across instances', () => {
  let w: MailWorld;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await w.close();
  });

  /**
   * Another instance in a process of its own, on the test app's database (the same SQLite files,
   * or the same DATABASE_URL), as a second server would be.
   */
  const instance = async (env: Record<string, string>) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules/vite-node/vite-node.mjs'), join(import.meta.dirname, 'fixtures/instance.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: w.t.dataDir,
        LOG_LEVEL: 'silent',
        MAIL_FROM: 'Groupadmin <no-reply@mail.example.org>',
        ...(w.t.config.databaseUrl ? { DATABASE_URL: w.t.config.databaseUrl } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const kill = async (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    };
    cleanups.push(() => kill('SIGKILL'));
    await waitFor(() => output.includes('STARTED') || child.exitCode !== null, 30_000, 50);
    if (!output.includes('STARTED')) throw new Error(`the instance did not start:\n${output}`);
    return { output: () => output, kill };
  };

  it('two instances sharing one database send 200 queued mails exactly once in total', async () => {
    w = await buildMailWorld();
    const first = w.startWorker({ sweepMs: 50 });
    // The other instance is not woken by this one's requests: it finds the mail at its sweeps.
    const second = await instance({ SMTP_URL: w.sink.url, SWEEP_MS: '20' });
    for (let batch = 0; batch < 4; batch += 1) {
      await w.queue(...Array.from({ length: 50 }, (_, index) => newMail({ to: { address: `p${batch * 50 + index}@example.com`, name: '' } })));
      await sleep(20);
    }
    await w.sink.waitForMails(200, 20_000);
    // Time for a mail sent twice to arrive.
    await sleep(500);
    expect(w.sink.mails).toHaveLength(200);
    expect(new Set(w.sink.mails.map((mail) => mail.parsed.messageId)).size).toBe(200);
    expect(new Set(w.sink.mails.map((mail) => mail.envelope.to[0])).size).toBe(200);
    const states = await w.t.storage.tenantDb('demo').selectFrom('mails').select('state').execute();
    expect(states.every((row) => row.state === 'sent')).toBe(true);
    await first.stop();
    await second.kill('SIGTERM');
    expect(first.errors).toEqual([]);
    expect(second.output()).not.toContain('worker error');
  });

  it('sends a mail whose instance died while holding it once the lease runs out, not before', async () => {
    w = await buildMailWorld();
    const [id] = await w.queue(newMail({ subject: 'Leased by the dead' }));
    const leaseUntil = Date.now() + 1_500;
    await w.t.storage.tenantDb('demo').updateTable('mails').set({ lease_holder: 'gone:1:x', lease_until: leaseUntil }).where('id', '=', id!).execute();
    const worker = w.startWorker();
    await w.sink.waitForMails(1, 8_000);
    expect(Date.now()).toBeGreaterThanOrEqual(leaseUntil);
    expect(w.sink.mails).toHaveLength(1);
    await worker.stop();
    expect(worker.errors).toEqual([]);
  });

  it('loses no mail when the process that committed it is killed (SIGKILL)', async () => {
    w = await buildMailWorld();
    const closedPort = await freePort();
    // Its SMTP server is down: it tries each mail once and schedules the retry.
    const doomed = await instance({ SMTP_URL: `smtp://mailer:s3cret-pass@127.0.0.1:${closedPort}`, MAIL_RETRY_SCHEDULE: '1', MAIL_COUNT: '20' });
    await waitFor(() => doomed.output().includes('COMMITTED'), 30_000, 50);
    const db = w.t.storage.tenantDb('demo');
    // Killed between attempts: it tried each one and holds none.
    await waitFor(async () => {
      const rows = await db.selectFrom('mails').select(['attempts', 'lease_holder']).execute();
      return rows.length === 20 && rows.every((row) => Number(row.attempts) === 1 && row.lease_holder === null);
    }, 10_000);
    await doomed.kill('SIGKILL');
    expect(w.sink.mails).toHaveLength(0);

    // The next instance to start (here with the SMTP server up) sends all of them, once.
    const worker = w.startWorker();
    await w.sink.waitForMails(20, 10_000);
    await sleep(300);
    expect(w.sink.mails).toHaveLength(20);
    expect(new Set(w.sink.mails.map((mail) => mail.parsed.subject)).size).toBe(20);
    const states = await db.selectFrom('mails').select(['state', 'attempts']).execute();
    expect(states.every((row) => row.state === 'sent' && Number(row.attempts) === 2)).toBe(true);
    await worker.stop();
    expect(worker.errors).toEqual([]);
  }, 60_000);
});
