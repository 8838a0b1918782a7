import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS, daysFromNow } from '../helpers/events.js';
import { createTenantAndUser, http, runCli, startServer, type ServerProcess } from '../helpers/processes.js';
import { DATABASE_URL, testServices, type TestServices } from '../helpers/services.js';

const PASSWORD = 'a long password';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * Events with the built server over real HTTP: a summer camp from creation to the kitchen's and the
 * lifeguard's lists, and the rule that capacity is exact under concurrency. On SQLite one
 * process answers; with DATABASE_URL two processes share the database and the requests are spread over both.
 */
describe('events over HTTP with the built server', () => {
  let dataDir: string;
  let services: TestServices;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];
  let admin: string;
  let root: number;
  let next = 0;

  /** Each call goes to the next server in turn. */
  const call = async (token: string | null, method: string, path: string, body?: object, headers: Record<string, string> = {}): Promise<Answer> => {
    const server = servers[next++ % servers.length]!;
    const answer = await http(server.port, {
      method,
      path: `/api${path}`,
      headers: {
        host: 'acme.localhost',
        accept: 'application/json',
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = String(answer.headers['content-type'] ?? '').startsWith('application/json');
    return { status: answer.status, headers: answer.headers, raw: answer.body, body: json && answer.body !== '' ? JSON.parse(answer.body) : null };
  };
  const created = async (token: string, path: string, body: object) => {
    const answer = await call(token, 'POST', path, body);
    expect(answer.status, `${path}: ${answer.raw}`).toBe(201);
    return answer.body.data;
  };
  const login = async (username: string) => {
    const answer = await call(null, 'POST', '/login', { username, password: PASSWORD });
    expect(answer.status, answer.raw).toBe(200);
    return answer.body.api_key.plainTextToken as string;
  };
  const group = async (name: string) => (await created(admin, '/groups', { parent_id: root, name })).group.id as number;
  const person = async (token: string, group_id: number, fields: Record<string, unknown>) =>
    (await created(token, '/people', { lastname: 'Scout', can_swimm: true, ...fields, membership: { group_id, role_type: 'member', ...(fields.membership as object) } })).person.id as number;
  const participations = async (token: string, eventId: number) => {
    const answer = await call(token, 'GET', `/events/${eventId}/participations?limit=200`);
    expect(answer.status, answer.raw).toBe(200);
    expect(answer.body.data.next_cursor).toBeNull();
    return answer.body.data.participations as { id: number; person_id: number; role: string; state: string; waitlist_position: number | null }[];
  };
  const eventOf = async (token: string, id: number) => (await call(token, 'GET', `/events/${id}`)).body.data.event;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-events-e2e-'));
    services = await testServices();
    env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', RATE_LIMIT_UNAUTHENTICATED: '100000', RATE_LIMIT_AUTHENTICATED: '100000', ...services.env };
    expect((await runCli(['migrate'], env)).status).toBe(0);
    // alice, the tenant's first user made without --group, administers the root.
    await createTenantAndUser(env, 'acme', 'alice', PASSWORD);
    servers.push(...(await Promise.all((DATABASE_URL ? [1, 2] : [1]).map(() => startServer(env)))));
    admin = await login('alice');
    const groups = (await call(admin, 'GET', '/groups')).body.data.groups as { id: number; parent_id: number | null }[];
    root = groups.find((g) => g.parent_id === null)!.id;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await services.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs a summer camp: a parent registers two children, the camp fills, a cancellation promotes the first waitlisted child, the leader gets the CSV and the summary', async () => {
    const troop = await group('Troop Otter');
    const parents = await group('Parents');
    const leaderId = await person(admin, troop, {
      username: 'lea', password: PASSWORD, email: 'lea@example.com', firstname: 'Lea', lastname: 'Leader', membership: { role_type: 'leader' },
    });
    const parentId = await person(admin, parents, { username: 'pat', password: PASSWORD, email: 'pat@example.com', firstname: 'Pat', lastname: 'Parent' });
    const leader = await login('lea');
    const parent = await login('pat');
    expect(leaderId).toBeGreaterThan(0);

    const kid = (firstname: string, fields: Record<string, unknown> = {}) => person(leader, troop, { firstname, lastname: 'Otter', ...fields });
    const mia = await kid('Mia', { is_vegetarian: true });
    const noah = await kid('Noah', { can_swimm: false, lastname: 'Otter, "Jr."' });
    const ava = await kid('Ava');
    const ben = await kid('Ben');
    const eli = await kid('Eli');
    for (const child of [mia, noah]) await created(admin, `/people/${child}/guardians`, { guardian_id: parentId });

    const camp = (await created(leader, '/events', {
      group_id: troop, name: 'Summer camp', location: 'Lake', starts_at: daysFromNow(60), ends_at: daysFromNow(67), capacity: 3,
    })).event;
    expect(camp).toMatchObject({ capacity: 3, waiting_list: true, requires_approval: false, participants_count: 0, waitlist_count: 0 });

    const register = async (token: string, person_id: number, notes?: string) =>
      (await created(token, `/events/${camp.id}/participations`, { person_id, ...(notes ? { notes } : {}) })).participation;
    expect((await register(leader, ava)).state).toBe('accepted');
    expect((await register(leader, ben)).state).toBe('accepted');
    // The parent sees the camp through the children and registers both; the camp is full after Mia.
    expect((await call(parent, 'GET', `/events/${camp.id}`)).status).toBe(200);
    expect(await register(parent, mia)).toMatchObject({ state: 'accepted', waitlist_position: null });
    const noahs = await register(parent, noah, 'Cannot swim yet: life jacket please');
    expect(noahs).toMatchObject({ state: 'waitlisted', waitlist_position: 1, notes: 'Cannot swim yet: life jacket please' });
    expect(await register(leader, eli)).toMatchObject({ state: 'waitlisted', waitlist_position: 2 });
    expect(await eventOf(leader, camp.id)).toMatchObject({ participants_count: 3, waitlist_count: 2 });
    expect((await participations(parent, camp.id)).map((p) => p.person_id).sort()).toEqual([mia, noah].sort());

    const before = (await call(leader, 'GET', `/events/${camp.id}/summary`)).body.data.summary;
    expect(before).toMatchObject({ accepted: 3, waitlisted: 2, cancelled: 0, non_swimmers: [] });

    // Ava drops out: Noah, first in line, is accepted; Eli moves up.
    const avas = (await participations(leader, camp.id)).find((p) => p.person_id === ava)!;
    expect((await call(leader, 'PATCH', `/participations/${avas.id}`, { state: 'cancelled' })).status).toBe(200);
    const after = await participations(leader, camp.id);
    const stateOf = (id: number) => after.filter((p) => p.person_id === id).map((p) => [p.state, p.waitlist_position]);
    expect([ava, ben, mia, noah, eli].map(stateOf)).toEqual([
      [['cancelled', null]], [['accepted', null]], [['accepted', null]], [['accepted', null]], [['waitlisted', 1]],
    ]);
    const ofNoah = (await call(parent, 'GET', `/people/${noah}/participations`)).body.data.participations;
    expect(ofNoah).toEqual([expect.objectContaining({ id: noahs.id, state: 'accepted', waitlist_position: null })]);

    const csv = await call(leader, 'GET', `/events/${camp.id}/participations`, undefined, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(String(csv.headers['content-type'])).toMatch(/^text\/csv/);
    expect(String(csv.headers['content-disposition'])).toMatch(/^attachment/);
    expect(csv.raw.startsWith(`${CSV_COLUMNS.join(',')}\r\n`)).toBe(true);
    const rows = parse(csv.raw, { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
    expect(rows.map((row) => [row.firstname, row.lastname, row.state, row.waitlist_position, row.can_swimm, row.is_vegetarian]).sort()).toEqual([
      ['Ava', 'Otter', 'cancelled', '', 'true', 'false'],
      ['Ben', 'Otter', 'accepted', '', 'true', 'false'],
      ['Eli', 'Otter', 'waitlisted', '1', 'true', 'false'],
      ['Mia', 'Otter', 'accepted', '', 'true', 'true'],
      ['Noah', 'Otter, "Jr."', 'accepted', '', 'false', 'false'],
    ]);
    expect(rows.find((row) => row.firstname === 'Noah')!.notes).toBe('Cannot swim yet: life jacket please');
    expect((await call(parent, 'GET', `/events/${camp.id}/participations`, undefined, { accept: 'text/csv' })).status).toBe(403);

    const summary = await call(leader, 'GET', `/events/${camp.id}/summary`);
    expect(summary.status).toBe(200);
    expect(summary.body.data.summary).toEqual({
      accepted: 3, pending: 0, waitlisted: 1, cancelled: 1, rejected: 0, helpers: 0, leaders: 0, vegetarians: 1,
      non_swimmers: [{ id: noah, firstname: 'Noah', lastname: 'Otter, "Jr."' }], attended: 0,
    });
    expect((await call(parent, 'GET', `/events/${camp.id}/summary`)).body).toEqual({ success: false, message: 'This action is unauthorized.' });
  }, 60_000);

  it('keeps the capacity exact when 50 register at once, and when cancellations race new registrations', async () => {
    const troop = await group('Troop Storm');
    const people: number[] = [];
    for (let i = 0; i < 60; i++) people.push(await person(admin, troop, { firstname: `Storm ${String(i).padStart(2, '0')}` }));
    const event = (await created(admin, '/events', { group_id: troop, name: 'Storm camp', starts_at: daysFromNow(90), ends_at: daysFromNow(91), capacity: 10 })).event;
    const register = (person_id: number) => call(admin, 'POST', `/events/${event.id}/participations`, { person_id });

    const first = await Promise.all(people.slice(0, 50).map(register));
    expect(first.map((answer) => answer.status)).toEqual(Array(50).fill(201));
    const answered = first.map((answer) => answer.body.data.participation as { state: string; waitlist_position: number | null });
    expect(answered.filter((p) => p.state === 'accepted')).toHaveLength(10);
    expect(answered.filter((p) => p.state === 'waitlisted').map((p) => p.waitlist_position).sort((a, b) => a! - b!)).toEqual(range(1, 40));

    const checkInvariants = async (accepted: number, waiting: number) => {
      const all = await participations(admin, event.id);
      const live = all.filter((p) => p.state === 'accepted');
      const queue = all.filter((p) => p.state === 'waitlisted').sort((a, b) => a.waitlist_position! - b.waitlist_position!);
      expect(live).toHaveLength(accepted);
      expect(queue.map((p) => p.waitlist_position)).toEqual(range(1, waiting));
      expect(all.filter((p) => p.state !== 'waitlisted').every((p) => p.waitlist_position === null)).toBe(true);
      expect(await eventOf(admin, event.id)).toMatchObject({ capacity: 10, participants_count: accepted, waitlist_count: waiting });
      return { live, queue, all };
    };
    const { live, queue } = await checkInvariants(10, 40);

    // Round two, all at once: five accepted cancel, the last five in line cancel, ten newcomers register.
    const leaving = [...live.slice(0, 5), ...queue.slice(35)];
    const round = await Promise.all([
      ...leaving.map((p) => call(admin, 'PATCH', `/participations/${p.id}`, { state: 'cancelled' })),
      ...people.slice(50).map(register),
    ]);
    expect(round.map((answer) => answer.status)).toEqual([...Array(10).fill(200), ...Array(10).fill(201)]);
    // Every seat freed went to the first in line at once, so the newcomers all found the camp full.
    expect(round.slice(10).map((answer) => answer.body.data.participation.state)).toEqual(Array(10).fill('waitlisted'));

    const settled = await checkInvariants(10, 40);
    // The five first in line were promoted; the rest of the old queue moved up, in order, ahead of the newcomers.
    const promoted = queue.slice(0, 5).map((p) => p.id);
    expect(settled.live.map((p) => p.id).sort((a, b) => a - b)).toEqual([...live.slice(5).map((p) => p.id), ...promoted].sort((a, b) => a - b));
    expect(settled.queue.slice(0, 30).map((p) => p.id)).toEqual(queue.slice(5, 35).map((p) => p.id));
    expect(settled.queue.slice(30).map((p) => p.person_id).sort((a, b) => a - b)).toEqual(people.slice(50).sort((a, b) => a - b));
  }, 120_000);
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
