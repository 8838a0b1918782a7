import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, PASSWORD } from '../helpers/app.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A closed app leaves nothing behind that holds it: no timer of its rate limits, token cache or
 * logger. One process builds many apps (the CLI, the tests), and each app holds its caches and
 * compiled routes, tens of megabytes.
 */
describe('closing an app', () => {
  /** An app that served a valid and an invalid token, closed: only a weak reference to it remains. */
  const serveAndClose = async () => {
    const t = await buildTestApp();
    await t.addUser('demo', { username: 'someone' });
    const token = await t.login('demo', 'someone', PASSWORD);
    const headers = { host: hostOf('demo'), accept: 'application/json' };
    expect((await t.app.inject({ method: 'GET', url: '/api/user', headers: { ...headers, authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/user', headers })).statusCode).toBe(401);
    await t.close();
    return new WeakRef(t.app);
  };

  it('leaves nothing holding it once it has served requests', async () => {
    const apps: WeakRef<object>[] = [];
    for (let i = 0; i < 3; i++) apps.push(await serveAndClose());
    // Let what closing started run out, then collect twice (a collection may free a finaliser's target only the next time).
    await sleep(100);
    gc();
    await sleep(0);
    gc();
    expect(apps.filter((app) => app.deref() !== undefined)).toHaveLength(0);
  });
});
