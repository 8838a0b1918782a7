import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, PASSWORD, type TestApp } from '../../helpers/app.js';
import { buildLaravelSource } from '../../helpers/laravel-source.js';
import { startTestMailWorker } from '../../helpers/mail-worker.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { sleep } from '../../helpers/wait.js';
import { importFromLaravel } from '../../../src/modules/laravel-import/rules.js';

/** No import of any kind writes mail: people arrive in bulk, and nobody asked to be told. */
describe('imports send no mail', () => {
  let sink: SmtpSink;
  let t: TestApp;
  beforeAll(async () => {
    sink = await startSmtpSink();
    t = await buildTestApp({ SMTP_URL: sink.url });
    startTestMailWorker(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  const outbox = (tenant: string) => t.storage.tenantDb(tenant).selectFrom('mails').select(['kind', 'to_address']).execute();

  it('the CSV import of people writes no mail', async () => {
    const root = await t.rootGroupId('demo');
    const admin = await t.addUser('demo', { username: 'admin' });
    await t.grant('demo', admin.id, root, 'admin');
    const token = await t.login('demo', 'admin', PASSWORD);
    const csv = 'firstname,lastname,email\nAnna,Import,anna@example.com\nBen,Import,ben@example.com\n';
    const answer = await t.app.inject({
      method: 'POST',
      url: `/api/people/import?group_id=${root}&role_type=member`,
      headers: { accept: 'application/json', 'content-type': 'text/csv', host: hostOf('demo'), authorization: `Bearer ${token}` },
      payload: csv,
    });
    expect(answer.statusCode, answer.body).toBeLessThan(300);
    await sleep(200);
    expect(await outbox('demo')).toEqual([]);
    expect(sink.mails).toEqual([]);
  });

  it('the Laravel import writes no mail', async () => {
    await t.addTenant('acme');
    const dir = mkdtempSync(join(tmpdir(), 'laravel-'));
    const source = new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(join(dir, 'database.sqlite')) }) });
    try {
      await buildLaravelSource(source, 'sqlite');
      const [users] = await importFromLaravel(source, t.storage.tenantDb('acme'));
      expect(users!.imported).toBeGreaterThan(0);
      await sleep(200);
      expect(await outbox('acme')).toEqual([]);
      expect(sink.mails).toEqual([]);
    } finally {
      await source.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
