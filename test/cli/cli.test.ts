import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/processes.js';
import { testServices, type TestServices } from '../helpers/services.js';

describe('groupadmin command line', () => {
  let env: Record<string, string>;
  let services: TestServices;
  beforeEach(async () => {
    services = await testServices();
    env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'groupadmin-cli-')), ...services.env };
  });
  afterEach(async () => {
    await services.cleanup();
    rmSync(env.DATA_DIR!, { recursive: true, force: true });
  });

  const cli = (args: string[], input?: string) => runCli(args, env, input);

  it('shows help for the program and each command with exit status 0', async () => {
    const help = await cli(['--help']);
    expect(help.status).toBe(0);
    for (const command of ['serve', 'migrate', 'tenant', 'user', 'token']) expect(help.stdout).toContain(command);
    for (const args of [['tenant', '--help'], ['user', 'create', '--help'], ['token', 'revoke', '--help']]) {
      const result = await cli(args);
      expect(result.status, args.join(' ')).toBe(0);
      expect(result.stdout).toContain('Usage: groupadmin');
    }
    expect((await cli(['user', 'create', '--help'])).stdout).toContain('--password-stdin');
  });

  it('sets a tenant\'s time zone by its IANA name, refusing others with one line', async () => {
    expect((await cli(['tenant', 'create', 'acme'])).status).toBe(0);
    const set = await cli(['tenant', 'timezone', 'acme', 'europe/zurich']);
    expect(set).toMatchObject({ status: 0, stdout: 'time zone of "acme" set to Europe/Zurich\n' });
    const bad = await cli(['tenant', 'timezone', 'acme', 'Mars/Olympus']);
    expect(bad).toMatchObject({ status: 1, stderr: 'groupadmin: "Mars/Olympus" is not a time zone: use an IANA name such as Europe/Zurich\n' });
    expect(await cli(['tenant', 'timezone', 'nowhere', 'UTC'])).toMatchObject({ status: 1, stderr: 'groupadmin: tenant "nowhere" not found\n' });
    expect((await cli(['tenant', 'timezone', 'acme'])).status).toBe(2);
  });

  it('creates a tenant in the time zone --timezone names, checked before anything is created', async () => {
    const created = await cli(['tenant', 'create', 'zurich', '--timezone', 'europe/zurich']);
    expect(created).toMatchObject({ status: 0, stdout: 'created tenant "zurich" (zurich), time zone Europe/Zurich, language en\n' });
    const bad = await cli(['tenant', 'create', 'mars', '--timezone', 'Mars/Olympus']);
    expect(bad).toMatchObject({ status: 1, stderr: 'groupadmin: "Mars/Olympus" is not a time zone: use an IANA name such as Europe/Zurich\n' });
    expect((await cli(['tenant', 'list'])).stdout).not.toContain('mars');
    expect((await cli(['tenant', 'create', 'plain'])).stdout).toBe('created tenant "plain" (plain), time zone UTC, language en\n');
  });

  it('creates a tenant in the language --locale names and sets it later, refusing others with one line', async () => {
    const created = await cli(['tenant', 'create', 'geneve', '--locale', 'fr']);
    expect(created).toMatchObject({ status: 0, stdout: 'created tenant "geneve" (geneve), time zone UTC, language fr\n' });
    const bad = await cli(['tenant', 'create', 'roma', '--locale', 'it']);
    expect(bad).toMatchObject({ status: 1, stderr: 'groupadmin: "it" is not a language of the service: use de, en, fr\n' });
    expect((await cli(['tenant', 'list'])).stdout).not.toContain('roma');
    expect(await cli(['tenant', 'locale', 'geneve', 'de'])).toMatchObject({ status: 0, stdout: 'language of "geneve" set to de\n' });
    expect(await cli(['tenant', 'locale', 'geneve', 'DE'])).toMatchObject({ status: 1, stderr: 'groupadmin: "DE" is not a language of the service: use de, en, fr\n' });
    expect(await cli(['tenant', 'locale', 'nowhere', 'en'])).toMatchObject({ status: 1, stderr: 'groupadmin: tenant "nowhere" not found\n' });
    expect((await cli(['tenant', 'locale', 'geneve'])).status).toBe(2);
  });

  it('exits 2 on wrong usage', async () => {
    expect((await cli([])).status).toBe(2);
    expect((await cli(['frobnicate'])).status).toBe(2);
    expect((await cli(['tenant', 'create'])).status).toBe(2);
    expect((await cli(['user', 'create', 'demo', 'bob'])).status).toBe(2);
    expect((await cli(['token', 'revoke', 'demo', 'bob'])).status).toBe(2);
    expect((await cli(['token', 'revoke', 'demo', 'bob', '--all', '--id', '3'])).status).toBe(2);
    expect((await cli(['token', 'revoke', 'demo', 'bob', '--id', 'x'])).status).toBe(2);
  });

  it('creates and lists tenants, refusing bad and duplicate slugs with one line', async () => {
    expect((await cli(['migrate'])).status).toBe(0);
    const created = await cli(['tenant', 'create', 'acme', '--name', 'Acme Club']);
    expect(created.status).toBe(0);
    expect((await cli(['tenant', 'create', 'globex'])).status).toBe(0);

    const duplicate = await cli(['tenant', 'create', 'acme']);
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toBe('groupadmin: tenant "acme" already exists\n');

    for (const slug of ['Acme', 'www', 'a_b', 'a-']) {
      const bad = await cli(['tenant', 'create', slug]);
      expect(bad.status, slug).toBe(1);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    }

    const list = await cli(['tenant', 'list']);
    expect(list.status).toBe(0);
    expect(list.stdout).toBe('acme\tAcme Club\nglobex\tglobex\n');
  });

  it('creates a user and prints it in the GET /api/user shape', async () => {
    await cli(['tenant', 'create', 'acme']);
    const result = await cli(
      [
        'user', 'create', 'acme', 'alice', '--email', 'alice@example.com', '--firstname', 'Alice', '--lastname', 'Smith',
        '--password-stdin', '--gender_id', '2', '--city', 'Berlin', '--can_swimm', 'true',
      ],
      'a good password\n',
    );
    expect(result.status).toBe(0);
    const user = JSON.parse(result.stdout);
    expect(Object.keys(user)).toHaveLength(17);
    expect(user).toMatchObject({ id: 1, username: 'alice', gender_id: 2, city: 'Berlin', can_swimm: true, is_vegetarian: false });
    expect(result.stderr).toBe('');
  });

  it('keeps the first administrator active when the tenant moves to the westernmost zone', async () => {
    // Created in the easternmost zone, where "today" is the latest date on earth; moving to the
    // westernmost puts "today" back a day for most hours. The administrator must act at once all
    // the same, at any hour this test runs.
    await cli(['tenant', 'create', 'acme', '--timezone', 'Pacific/Kiritimati']);
    const created = await cli(['user', 'create', 'acme', 'ada', '--email', 'ada@example.com', '--firstname', 'Ada', '--lastname', 'Admin']);
    expect(created.status).toBe(0);
    expect((await cli(['tenant', 'timezone', 'acme', 'Etc/GMT+12'])).status).toBe(0);
    const active = await cli(['membership', 'list', 'acme', '--group', '1']);
    expect(active.stdout.split('\n').filter(Boolean).map((row) => row.split('\t').slice(2, 5))).toEqual([['Admin', 'Ada', 'admin']]);
  });

  it('generates and prints a password once when none is piped in', async () => {
    await cli(['tenant', 'create', 'acme']);
    const result = await cli(['user', 'create', 'acme', 'bob', '--email', 'bob@example.com', '--firstname', 'B', '--lastname', 'C']);
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/^generated password: [A-Za-z0-9]{24}\n$/);
  });

  it('validates values like the API and reports one clear line', async () => {
    await cli(['tenant', 'create', 'acme']);
    const base = ['user', 'create', 'acme', 'carol', '--firstname', 'C', '--lastname', 'D'];
    const badEmail = await cli([...base, '--email', 'not-an-email']);
    expect(badEmail.status).toBe(1);
    expect(badEmail.stderr).toBe('groupadmin: The email field must be a valid email address.\n');
    const badGender = await cli([...base, '--email', 'c@example.com', '--gender_id', 'female']);
    expect(badGender.stderr).toBe('groupadmin: The gender id field must be an integer.\n');
    const shortPassword = await cli([...base, '--email', 'c@example.com', '--password-stdin'], 'short\n');
    expect(shortPassword.stderr).toBe('groupadmin: The password field must be at least 8 characters.\n');
    expect((await cli([...base, '--email', 'c@example.com'])).status).toBe(0);
    const taken = await cli([...base, '--email', 'other@example.com']);
    expect(taken.stderr).toBe('groupadmin: The username has already been taken.\n');
    // A first membership refused (dates out of order) leaves no user behind: the same name is free.
    const root = (await cli(['group', 'list', 'acme'])).stdout.split('\t')[0]!;
    const grant = ['--group', root, '--role', 'member'];
    const backwards = await cli(['user', 'create', 'acme', 'dora', '--firstname', 'D', '--lastname', 'E', '--email', 'd@example.com', ...grant, '--start', '2026-02-10', '--end', '2026-02-01']);
    expect(backwards).toMatchObject({ status: 1, stdout: '', stderr: 'groupadmin: The end on field must be a date after or equal to start on.\n' });
    expect((await cli(['user', 'create', 'acme', 'dora', '--firstname', 'D', '--lastname', 'E', '--email', 'd@example.com', ...grant])).status).toBe(0);
    const missingTenant = await cli(['user', 'create', 'nope', 'x', '--email', 'x@example.com', '--firstname', 'X', '--lastname', 'Y']);
    expect(missingTenant.status).toBe(1);
    expect(missingTenant.stderr).toBe('groupadmin: tenant "nope" not found\n');
  });

  it('changes passwords, (de)activates users and revokes tokens, naming missing users', async () => {
    await cli(['tenant', 'create', 'acme']);
    await cli(['user', 'create', 'acme', 'dave', '--email', 'd@example.com', '--firstname', 'D', '--lastname', 'E']);
    expect((await cli(['user', 'passwd', 'acme', 'dave', '--password-stdin'], 'another password\n')).status).toBe(0);
    expect((await cli(['user', 'deactivate', 'acme', 'dave'])).status).toBe(0);
    expect((await cli(['user', 'activate', 'acme', 'dave'])).status).toBe(0);
    expect((await cli(['token', 'revoke', 'acme', 'dave', '--all'])).stdout).toBe('0 token(s) of "dave" revoked\n');
    const missingToken = await cli(['token', 'revoke', 'acme', 'dave', '--id', '42']);
    expect(missingToken.status).toBe(1);
    expect(missingToken.stderr).toBe('groupadmin: token 42 of user "dave" not found\n');
    const missingUser = await cli(['user', 'deactivate', 'acme', 'erin']);
    expect(missingUser.status).toBe(1);
    expect(missingUser.stderr).toBe('groupadmin: user "erin" not found in tenant "acme"\n');
  });

  it('creates tokens, lists them without secrets, and prunes expired ones', async () => {
    await cli(['tenant', 'create', 'acme']);
    await cli(['user', 'create', 'acme', 'erin', '--email', 'e@example.com', '--firstname', 'E', '--lastname', 'F']);
    const created = await cli(['token', 'create', 'acme', 'erin', '--name', 'backup script', '--abilities', 'user:read,tokens:read']);
    expect(created.status).toBe(0);
    expect(created.stdout).toMatch(/^\d+\|[A-Za-z0-9]{40}[0-9a-f]{8}\n$/);
    const expiring = await cli(['token', 'create', 'acme', 'erin', '--name', 'soon', '--expires-at', new Date(Date.now() + 3_600_000).toISOString()]);
    expect(expiring.status).toBe(0);

    const list = await cli(['token', 'list', 'acme', 'erin']);
    expect(list.status).toBe(0);
    const tokens = JSON.parse(list.stdout);
    expect(tokens.map((token: { name: string; abilities: string[] }) => [token.name, token.abilities])).toEqual([
      ['backup script', ['user:read', 'tokens:read']],
      ['soon', ['*']],
    ]);
    expect(tokens[1].expires_at).toMatch(/Z$/);
    expect(list.stdout).not.toContain(created.stdout.trim().split('|')[1]);

    expect((await cli(['token', 'create', 'acme', 'erin', '--name', 'x', '--abilities', 'root'])).stderr).toBe(
      'groupadmin: The selected abilities.0 is invalid.\n',
    );
    expect((await cli(['token', 'create', 'acme', 'erin', '--name', 'x', '--expires-at', '2001-01-01T00:00:00Z'])).status).toBe(1);
    expect((await cli(['token', 'create', 'acme', 'erin'])).status).toBe(2);

    // Nothing has expired yet; with --hours 0 and a token that expired, it goes.
    expect((await cli(['token', 'prune'])).stdout).toBe('0 expired token(s) pruned in 1 tenant(s)\n');
    expect((await cli(['token', 'prune', '--hours', 'x'])).status).toBe(2);
  });

  it('prunes change records older than CHANGES_RETENTION_DAYS, which is at least 30', async () => {
    await cli(['tenant', 'create', 'acme']);
    await cli(['user', 'create', 'acme', 'alice', '--email', 'alice@example.com', '--firstname', 'A', '--lastname', 'B']);
    expect(await cli(['changes', 'prune'])).toMatchObject({ status: 0, stdout: '0 change record(s) older than 30 days pruned in 1 tenant(s)\n' });
    expect((await runCli(['changes', 'prune'], { ...env, CHANGES_RETENTION_DAYS: '45' })).stdout).toContain('older than 45 days');
    const tooShort = await runCli(['changes', 'prune'], { ...env, CHANGES_RETENTION_DAYS: '7' });
    expect(tooShort.status).toBe(1);
    expect(tooShort.stderr).toContain('CHANGES_RETENTION_DAYS');
  });

  it('prints the OpenAPI document', async () => {
    const result = await cli(['openapi']);
    expect(result.status).toBe(0);
    const document = JSON.parse(result.stdout);
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/login');
  });

  it('stops with one line naming a bad setting', async () => {
    const result = await runCli(['tenant', 'list'], { ...env, RATE_LIMIT_AUTHENTICATED: 'lots' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('RATE_LIMIT_AUTHENTICATED');
  });
});
