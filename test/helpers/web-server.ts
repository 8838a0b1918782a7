import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { http, ROOT, startServer, type ServerProcess } from './processes.js';
import { testServices } from './services.js';

/** Where the browser tests leave their screenshots. */
export const ARTIFACTS = join(ROOT, 'test-artifacts');

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The built server of a browser test, on storage of its own, with its first administrator's token. */
export interface WebServer {
  server: ServerProcess;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** The token of the account the first start printed (admin on the root). */
  admin: string;
  /** An API call (as `admin` unless a token is given): the answer's JSON, whatever its status. */
  api(method: string, path: string, body?: object, token?: string): Promise<any>;
  /** The same, failing the test on any answer but 2xx. */
  apiOk(method: string, path: string, body?: object): Promise<any>;
  stop(): Promise<void>;
}

/**
 * Starts the built server for a browser test (SQLite, or the machine's PostgreSQL + Redis when
 * the suite runs on them) and signs in its first administrator through the API.
 */
export async function startWebServer(name: string, env: Record<string, string> = {}): Promise<WebServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `groupadmin-web-${name}-`));
  const services = await testServices();
  const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env, ...services.env });
  // The first start prints its account a moment after it listens.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const credentials = /-d '(\{.*\})'/.exec(server.output())![1]!;
  const login = await http(server.port, { method: 'POST', path: '/api/login', headers: { host: 'localhost', 'content-type': 'application/json', accept: 'application/json' }, body: credentials });
  const admin = JSON.parse(login.body).api_key.plainTextToken as string;
  const call = (method: string, path: string, body: object | undefined, token: string) =>
    http(server.port, {
      method,
      path: `/api${path}`,
      headers: { host: 'localhost', accept: 'application/json', authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    server,
    base: `http://127.0.0.1:${server.port}`,
    admin,
    api: async (method, path, body, token = admin) => JSON.parse((await call(method, path, body, token)).body || 'null'),
    apiOk: async (method, path, body) => {
      const answer = await call(method, path, body, admin);
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.body}`);
      return JSON.parse(answer.body || 'null');
    },
    stop: async () => {
      await server.stop();
      await services.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** axe-core's serious and critical violations on the page (evaluated by the test, which the page's content policy does not govern). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string }[] }> } }).axe.run();
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact})`);
  });
}
