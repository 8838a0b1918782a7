import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { ROOT, runProcess, startServer } from '../helpers/processes.js';
import { testServices } from '../helpers/services.js';

describe('the typed client', () => {
  it('runs the example of docs/api/README.md against the real server', async () => {
    const example = readFileSync(join(ROOT, 'examples/client.mjs'), 'utf8');
    expect(readFileSync(join(ROOT, 'docs/api/README.md'), 'utf8')).toContain(example.trim());
    const dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-client-'));
    const services = await testServices();
    const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...services.env });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const password = JSON.parse(/-d '(\{.*\})'/.exec(server.output())![1]!).password as string;
      const result = await runProcess(process.execPath, ['examples/client.mjs'], {
        env: { PATH: process.env.PATH ?? '', GROUPADMIN_URL: `http://127.0.0.1:${server.port}/api`, GROUPADMIN_PASSWORD: password },
        // Below the test's own 30 s, so that a hang shows the script's output.
        timeoutMs: 25_000,
      });
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe('Hello Admin User <admin@example.com>\n');
      expect(result.status).toBe(0);

      // Typed errors come back as values; the wrong password is the documented 401 body.
      const client = createClient({ baseUrl: `http://127.0.0.1:${server.port}/api` });
      const failed = await client.login('admin', 'wrong');
      expect(failed.response.status).toBe(401);
      expect(failed.error).toEqual({ success: false, message: 'Login Fail, pls check password' });
      expect((await client.user()).error).toEqual({ message: 'Unauthenticated.' });
      expect((await client.login('admin', password)).response.status).toBe(200);
      const { data: tenant } = await client.tenant();
      expect(tenant?.data.tenant).toEqual({ slug: 'demo', name: 'Demo', timezone: 'UTC', locale: 'en' });
      // The first administrator changes the tenant's language and reads their own data as an administrator would.
      const changed = await client.tenant.update({ locale: 'de' });
      expect(changed.data?.data.tenant).toEqual({ slug: 'demo', name: 'Demo', timezone: 'UTC', locale: 'de' });
      const me = (await client.user()).data!.id;
      const exported = await client.people.export(me);
      expect(exported.data?.data.export.person.id).toBe(me);
    } finally {
      await server.stop();
      await services.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('retries a 429 after retry_after seconds when asked to, and only then', async () => {
    let calls = 0;
    const http = createServer((request, response) => {
      calls++;
      if (calls === 1) {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        response.end('{"message":"Too Many Attempts.","retry_after":1}');
        return;
      }
      expect(request.headers.accept).toBe('application/json');
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end('{"message":"Unauthenticated."}');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as { port: number };
    try {
      const patient = createClient({ baseUrl: `http://127.0.0.1:${port}/api`, retryOn429: 1 });
      const started = Date.now();
      const answer = await patient.user();
      expect(answer.response.status).toBe(401);
      expect(calls).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);

      calls = 0;
      const impatient = createClient({ baseUrl: `http://127.0.0.1:${port}/api` });
      const first = await impatient.user();
      expect(first.response.status).toBe(429);
      expect(first.error).toEqual({ message: 'Too Many Attempts.', retry_after: 1 });
      expect(calls).toBe(1);
    } finally {
      http.close();
    }
  });

  it('has types that match the API (no drift)', async () => {
    const result = await runProcess(process.execPath, ['scripts/generate-client-types.mjs', '--check'], { env: { PATH: process.env.PATH ?? '' }, timeoutMs: 30_000 });
    expect(result.status, result.stderr).toBe(0);
  });
});
