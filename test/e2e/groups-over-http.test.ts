import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantAndUser, http, runCli, startServer, type ServerProcess } from '../helpers/processes.js';
import { testServices, type TestServices } from '../helpers/services.js';
import { sleep } from '../helpers/wait.js';

/**
 * The group core as an operator and its users meet it: the real CLI builds a tenant's tree and
 * grants roles, two built server processes answer over real HTTP, a leader manages only their
 * part of the tree, another tenant sees nothing of it, and a role taken away on one process
 * stops acting on the other within a second (no instance keeps permissions).
 */
describe('groups, people and memberships through the CLI and two server processes', () => {
  let dataDir: string;
  let services: TestServices;
  let env: Record<string, string>;
  let a: ServerProcess;
  let b: ServerProcess;
  const ids: Record<string, number> = {};

  const cli = (args: string[], input?: string) => runCli(args, env, input);
  /** A command that must succeed; its standard output. */
  const ok = async (args: string[], input?: string) => {
    const result = await cli(args, input);
    expect(result.status, `groupadmin ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };
  const call = async (port: number, token: string | null, method: string, path: string, body?: object, tenant = 'acme') => {
    const answer = await http(port, {
      method,
      path: `/api${path}`,
      headers: {
        host: `${tenant}.localhost`,
        accept: 'application/json',
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: answer.status, body: answer.body === '' ? null : JSON.parse(answer.body) };
  };
  const login = async (username: string, tenant = 'acme') => {
    const answer = await call(a.port, null, 'POST', '/login', { username, password: 'a long password' }, tenant);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.api_key.plainTextToken as string;
  };
  /** Polls `check` until it holds; fails after a second. */
  const within1s = async (check: () => Promise<boolean>) => {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > 1000) throw new Error('not seen within a second');
      await sleep(20);
    }
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-groups-e2e-'));
    services = await testServices();
    env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', RATE_LIMIT_UNAUTHENTICATED: '1000', RATE_LIMIT_AUTHENTICATED: '1000', ...services.env };
    await ok(['migrate']);
    // alice is the tenant's first user made without --group: she becomes administrator of the root.
    await createTenantAndUser(env);
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await services.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('builds a tree and grants roles with the CLI, refusing mistakes with one line', async () => {
    for (const args of [['group', '--help'], ['role-type', 'create', '--help'], ['membership', 'add', '--help'], ['membership', 'list', '--help']]) {
      expect(await cli(args), args.join(' ')).toMatchObject({ status: 0, stdout: expect.stringContaining('Usage: groupadmin') });
    }
    expect(await ok(['user', 'create', '--help'])).toContain('--role <key>');
    const tree = (await ok(['group', 'list', 'acme'])).trim().split('\n');
    expect(tree).toHaveLength(1);
    const [rootId, parent, depth, kind, name] = tree[0]!.split('\t');
    expect([parent, depth, kind, name]).toEqual(['-', '0', '-', 'acme']);
    ids.root = Number(rootId);

    const group = async (name: string, parentId: number, kind?: string) =>
      JSON.parse(await ok(['group', 'create', 'acme', name, '--parent', String(parentId), ...(kind ? ['--kind', kind] : [])])).id as number;
    ids.region = await group('Region North', ids.root, 'region');
    ids.troopA = await group('Troop A', ids.region, 'troop');
    ids.troopB = await group('Troop B', ids.region, 'troop');
    expect((await ok(['group', 'list', 'acme'])).split('\n').slice(1, 4).map((line) => line.split('\t').slice(2).join(' '))).toEqual([
      '1 region Region North',
      '2 troop Troop A',
      '2 troop Troop B',
    ]);

    await ok(['role-type', 'create', 'acme', 'cook', '--permission', 'read', '--scope', 'group', '--label', 'Cook']);
    expect((await ok(['role-type', 'list', 'acme'])).split('\n')).toEqual(expect.arrayContaining(['admin\tadmin\tsubtree\tAdministrator', 'cook\tread\tgroup\tCook']));

    // A user made with --group gets that membership and no administration.
    const created = await cli(
      ['user', 'create', 'acme', 'lea', '--email', 'lea@example.com', '--firstname', 'Lea', '--lastname', 'Leader', '--group', String(ids.troopA), '--role', 'leader', '--password-stdin'],
      'a long password\n',
    );
    expect(created.status, created.stderr).toBe(0);
    expect(created.stderr).toBe('');
    ids.lea = JSON.parse(created.stdout).id;
    const members = (await ok(['membership', 'list', 'acme', '--group', String(ids.troopA)])).trim().split('\n');
    expect(members.map((line) => line.split('\t').slice(1, 5))).toEqual([[String(ids.lea), 'Leader', 'Lea', 'leader']]);

    // A person by id works as well as by username; mistakes are one line and exit status 1.
    // (an ended role, so it gives nothing today)
    await ok(['membership', 'add', 'acme', String(ids.lea), '--group', String(ids.troopB), '--role', 'cook', '--start', '2020-01-01', '--end', '2020-12-31']);
    expect(await ok(['membership', 'list', 'acme', '--group', String(ids.troopB)])).toBe('');
    expect((await ok(['membership', 'list', 'acme', '--group', String(ids.troopB), '--all'])).split('\t').slice(4)).toEqual(['cook', '2020-01-01', '2020-12-31\n']);
    const refusals: [string[], string][] = [
      [['membership', 'add', 'acme', 'lea', '--group', String(ids.troopA), '--role', 'leader'], 'The person already has this role in this group.'],
      [['membership', 'add', 'acme', 'nobody', '--group', String(ids.troopA), '--role', 'leader'], 'person "nobody" not found in tenant "acme"'],
      [['membership', 'add', 'acme', 'lea', '--group', '999999', '--role', 'leader'], 'Group not found.'],
      [['membership', 'add', 'acme', 'lea', '--group', String(ids.troopA), '--role', 'chief'], 'Role type not found.'],
      [['membership', 'add', 'acme', 'lea', '--group', String(ids.troopA), '--role', 'member', '--start', '2026-02-30'], 'The start on field must be a valid date.'],
      [['group', 'create', 'acme', 'Orphans', '--parent', '999999'], 'The selected parent id is invalid.'],
      [['role-type', 'create', 'acme', 'cook', '--permission', 'read', '--scope', 'group'], 'The key has already been taken.'],
      [['role-type', 'create', 'acme', 'Boss', '--permission', 'root', '--scope', 'group'], 'The key field format is invalid. (and 1 more error)'],
      [['user', 'create', 'acme', 'max', '--email', 'max@example.com', '--firstname', 'M', '--lastname', 'M', '--group', String(ids.troopA)], '--group and --role go together'],
    ];
    for (const [args, message] of refusals) {
      expect(await cli(args), args.join(' ')).toMatchObject({ status: 1, stderr: `groupadmin: ${message}\n` });
    }
    // The refused user create made nobody.
    expect((await cli(['user', 'passwd', 'acme', 'max'])).status).toBe(1);
    expect((await cli(['membership', 'list', 'acme'])).status).toBe(2);
  }, 120_000);

  it('lets a leader manage their troop only, over real HTTP; another tenant sees none of it', async () => {
    const admin = await login('alice');
    const leader = await login('lea');
    const child = (token: string, group_id: number, firstname: string) =>
      call(b.port, token, 'POST', '/people', { firstname, lastname: 'Kid', membership: { group_id, role_type: 'member' } });

    const mia = await child(leader, ids.troopA!, 'Mia');
    expect(mia.status).toBe(201);
    ids.mia = mia.body.data.person.id;
    expect(await child(leader, ids.troopB!, 'Noah')).toMatchObject({ status: 403, body: { success: false, message: 'This action is unauthorized.' } });
    const noah = await child(admin, ids.troopB!, 'Noah');
    expect(noah.status).toBe(201);

    // The leader lists the region: the troop they lead, not the other one.
    const listed = await call(a.port, leader, 'GET', `/people?group_id=${ids.region}&below=true`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.people.map((p: { firstname: string }) => p.firstname)).toEqual(['Mia', 'Lea']);
    expect((await call(a.port, leader, 'GET', `/people/${noah.body.data.person.id}`)).body).toEqual({ success: false, message: 'Person not found.' });
    expect((await call(a.port, admin, 'GET', `/groups/${ids.region}/memberships?all=true`)).body.data.memberships).toEqual([]);

    // Another tenant: its first user is its administrator and sees only its own people.
    await ok(['tenant', 'create', 'globex']);
    await ok(['user', 'create', 'globex', 'gina', '--email', 'gina@example.com', '--firstname', 'Gina', '--lastname', 'G', '--password-stdin'], 'a long password\n');
    const gina = await login('gina', 'globex');
    const theirs = await call(b.port, gina, 'GET', '/people', undefined, 'globex');
    expect(theirs.body.data.people.map((p: { username: string }) => p.username)).toEqual(['gina']);
    expect((await call(b.port, gina, 'GET', `/people/${ids.mia}`, undefined, 'globex')).status).toBe(404);
    expect((await call(b.port, gina, 'GET', `/groups/${ids.troopA}`, undefined, 'globex')).status).toBe(404);
    expect((await call(b.port, leader, 'GET', '/people', undefined, 'globex')).status).toBe(401);
  });

  it('stops a lowered role type and an ended membership on the other process within a second', async () => {
    const admin = await login('alice');
    const leader = await login('lea');
    const addsOnB = async () =>
      (await call(b.port, leader, 'POST', '/people', { firstname: 'Ada', lastname: 'Kid', membership: { group_id: ids.troopA, role_type: 'member' } })).status;
    expect(await addsOnB()).toBe(201);

    expect((await call(a.port, admin, 'PATCH', '/role-types/leader', { permission: 'read' })).status).toBe(200);
    await within1s(async () => (await addsOnB()) === 403);
    expect((await call(a.port, admin, 'PATCH', '/role-types/leader', { permission: 'write' })).status).toBe(200);
    await within1s(async () => (await addsOnB()) === 201);

    const readsOnB = async () => (await call(b.port, leader, 'GET', `/groups/${ids.troopA}/memberships`)).status;
    expect(await readsOnB()).toBe(200);
    const memberships = (await call(a.port, admin, 'GET', `/people/${ids.lea}/memberships`)).body.data.memberships as { id: number; group_id: number }[];
    const lead = memberships.find((m) => m.group_id === ids.troopA)!;
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const ended = await call(a.port, admin, 'PATCH', `/memberships/${lead.id}`, { start_on: '2020-01-01', end_on: twoDaysAgo });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    await within1s(async () => (await readsOnB()) === 403);
  });
});
