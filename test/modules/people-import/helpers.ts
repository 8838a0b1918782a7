import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

/** A tenant "demo" with an admin on the root, a troop below it, and a troop leader there. */
export interface ImportWorld {
  t: TestApp;
  root: number;
  troop: number;
  other: number;
  tokens: Record<'admin' | 'leader', string>;
  ids: Record<'admin' | 'leader', number>;
  /** POST /api/people/import with a CSV body (or any body and content type). */
  importCsv(who: 'admin' | 'leader', query: string, body: string | Buffer, contentType?: string): Promise<LightMyRequestResponse>;
  call(who: 'admin' | 'leader', method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object): Promise<LightMyRequestResponse>;
  /** GET /api/people with Accept: text/csv. */
  exportCsv(who: 'admin' | 'leader', query?: string, tenant?: string, token?: string): Promise<LightMyRequestResponse>;
  countPeople(tenant?: string): Promise<number>;
}

export async function buildImportWorld(env: Record<string, string> = {}): Promise<ImportWorld> {
  const t = await buildTestApp(env);
  const root = await t.rootGroupId('demo');
  const admin = (await t.addUser('demo', { username: 'admin', lastname: 'Admin' })).id;
  const leader = (await t.addUser('demo', { username: 'leader', lastname: 'Leader' })).id;
  await t.grant('demo', admin, root, 'admin');
  const tokens = { admin: await t.login('demo', 'admin', PASSWORD), leader: '' };
  const call: ImportWorld['call'] = (who, method, url, payload) =>
    t.app.inject({
      method,
      url: `/api${url}`,
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${tokens[who]}` },
      ...(payload ? { payload } : {}),
    });
  const group = async (parent_id: number, name: string) => (await call('admin', 'POST', '/groups', { parent_id, name })).json().data.group.id as number;
  const troop = await group(root, 'Troop');
  const other = await group(root, 'Other troop');
  await t.grant('demo', leader, troop, 'leader');
  tokens.leader = await t.login('demo', 'leader', PASSWORD);
  return {
    t,
    root,
    troop,
    other,
    tokens,
    ids: { admin, leader },
    call,
    importCsv: (who, query, body, contentType = 'text/csv') =>
      t.app.inject({
        method: 'POST',
        url: `/api/people/import?${query}`,
        headers: { accept: 'application/json', 'content-type': contentType, host: hostOf('demo'), authorization: `Bearer ${tokens[who]}` },
        payload: body,
      }),
    exportCsv: (who, query = '', tenant = 'demo', token = tokens[who]) =>
      t.app.inject({
        method: 'GET',
        url: `/api/people${query === '' ? '' : `?${query}`}`,
        headers: { accept: 'text/csv', host: hostOf(tenant), authorization: `Bearer ${token}` },
      }),
    countPeople: async (tenant = 'demo') => {
      const row = await t.storage.tenantDb(tenant).selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export const CRLF = '\r\n';
export const csv = (...lines: string[]) => `${lines.join(CRLF)}${CRLF}`;
