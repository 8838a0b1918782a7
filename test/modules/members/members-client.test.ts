import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/client/index.js';
import { hostOf } from '../../helpers/app.js';
import { buildMembersWorld, type MembersWorld } from './world.js';

/** The typed client's members calls, answered by the app in this process. */
describe('the typed client: groups.members and groups.membersFile', () => {
  let w: MembersWorld;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    w = await buildMembersWorld();
    const inProcess = async (request: Request): Promise<Response> => {
      const url = new URL(request.url);
      const answer = await w.t.app.inject({
        method: request.method as 'GET',
        url: `${url.pathname}${url.search}`,
        headers: { ...Object.fromEntries(request.headers), host: hostOf('demo') },
      });
      return new Response(new Uint8Array(answer.rawPayload), { status: answer.statusCode, headers: answer.headers as Record<string, string> });
    };
    client = createClient({ baseUrl: 'http://demo.localhost/api', token: w.tokens.leader, fetch: inProcess as typeof fetch });
  }, 60_000);
  afterAll(() => w?.t.close());

  it('pages through the members with their memberships', async () => {
    const first = await client.groups.members(w.groups.troopA, { sort: 'birthday', limit: 4 });
    expect(first.response.status).toBe(200);
    expect(first.data?.data.total).toBe(6);
    expect(first.data?.data.members.map((item) => item.person.firstname)).toEqual(['Zoe', 'Émile', 'Anna', 'Asa']);
    expect(first.data?.data.members[0]?.memberships.map((m) => m.group_name)).toEqual(['Troop A', 'Troop A']);
    const next = await client.groups.members(w.groups.troopA, { sort: 'birthday', limit: 4, cursor: first.data!.data.next_cursor! });
    expect(next.data?.data.members.map((item) => item.person.firstname)).toEqual(['Bea', 'Max']);
    expect(next.data?.data.next_cursor).toBeNull();
  });

  it('downloads the list as a file', async () => {
    const csv = await client.groups.membersFile(w.groups.troopA, 'csv', { sort: 'role' });
    expect(csv.response.headers.get('content-disposition')).toMatch(/filename="members-\d+-\d{4}-\d{2}-\d{2}\.csv"/);
    expect((await csv.data!.text()).split('\r\n')[1]).toContain('Asa,Assistant');
    const xlsx = await client.groups.membersFile(w.groups.troopA, 'xlsx');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await xlsx.data!.arrayBuffer());
    expect(workbook.worksheets[0]!.rowCount).toBe(7);
  });
});
