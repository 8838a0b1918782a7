import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, JSON_HEADERS } from '../helpers/app.js';
import { startServer, type ServerProcess } from '../helpers/processes.js';
import { testServices, type TestServices } from '../helpers/services.js';

function httpsGet(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string; encrypted: boolean }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, rejectUnauthorized: false }, (res) => {
      let body = '';
      const encrypted = Boolean((res.socket as { encrypted?: boolean } | null)?.encrypted);
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, encrypted }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTPS', () => {
  let dir: string;
  let server: ServerProcess;
  let services: TestServices;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'groupadmin-tls-'));
    // A self-signed certificate made for this test.
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    services = await testServices();
    server = await startServer({
      DATA_DIR: join(dir, 'data'),
      LOG_LEVEL: 'info',
      TLS_CERT_FILE: join(dir, 'cert.pem'),
      TLS_KEY_FILE: join(dir, 'key.pem'),
      REQUIRE_HTTPS: 'true',
      ...services.env,
    }, 'https');
  });
  afterAll(async () => {
    await server?.stop();
    await services.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the API over TLS with TLS_CERT_FILE and TLS_KEY_FILE, and REQUIRE_HTTPS lets it through', async () => {
    const health = await httpsGet(server.port, '/health');
    expect(health).toMatchObject({ status: 200, encrypted: true });
    const user = await httpsGet(server.port, '/api/user', { accept: 'application/json' });
    expect(user.status).toBe(401);
    expect(user.body).toBe('{"message":"Unauthenticated."}');
  });

  it('refuses a bad TLS setting at start with one line', async () => {
    await expect(startServer({ DATA_DIR: join(dir, 'data2'), TLS_CERT_FILE: join(dir, 'missing.pem'), TLS_KEY_FILE: join(dir, 'key.pem') })).rejects.toThrow(
      /TLS_CERT_FILE must be a readable file/,
    );
  });
});

describe('REQUIRE_HTTPS', () => {
  it('answers plain HTTP with 403 before reading credentials, but not health probes', async () => {
    const t = await buildTestApp({ REQUIRE_HTTPS: 'true' });
    try {
      for (const method of ['GET', 'POST'] as const) {
        const response = await t.app.inject({ method, url: '/api/user', headers: { authorization: 'Bearer 1|x' } });
        expect(response.statusCode).toBe(403);
        expect(response.body).toBe('{"success":false,"message":"HTTPS required."}');
      }
      expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      // A proxy's X-Forwarded-Proto counts only when the proxy is trusted.
      const spoofed = await t.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, 'x-forwarded-proto': 'https' } });
      expect(spoofed.statusCode).toBe(403);
    } finally {
      await t.close();
    }
    const proxied = await buildTestApp({ REQUIRE_HTTPS: 'true', TRUST_PROXY: '127.0.0.1' });
    try {
      const response = await proxied.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, 'x-forwarded-proto': 'https' } });
      expect(response.statusCode).toBe(401);
    } finally {
      await proxied.close();
    }
  });
});
