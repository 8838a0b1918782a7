import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/processes.js';
import { testServices, type TestServices } from '../helpers/services.js';

/** `groupadmin webhook ...`: the webhook rules of the API at the command line. */
describe('groupadmin webhook', () => {
  let env: Record<string, string>;
  let services: TestServices;
  beforeEach(async () => {
    services = await testServices();
    env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'groupadmin-webhook-cli-')), ...services.env };
  });
  afterEach(async () => {
    await services.cleanup();
    rmSync(env.DATA_DIR!, { recursive: true, force: true });
  });
  const cli = (...args: string[]) => runCli(args, env);

  it('creates (showing the secret once), lists, disables, enables and deletes, refusing what the API refuses', async () => {
    expect((await cli('tenant', 'create', 'acme')).status).toBe(0);
    const created = await cli('webhook', 'create', 'acme', 'https://93.184.215.14/hook', '--entities', 'person,membership', '--description', 'Sync');
    expect(created.status, created.stderr).toBe(0);
    const webhook = JSON.parse(created.stdout);
    expect(webhook).toMatchObject({ id: 1, url: 'https://93.184.215.14/hook', entities: ['person', 'membership'], description: 'Sync', enabled: true });
    expect(webhook.secret).toMatch(/^whsec_/);

    const listed = await cli('webhook', 'list', 'acme');
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([{ ...webhook, secret: undefined, disabled_reason: null }].map((w) => JSON.parse(JSON.stringify(w))));
    expect(listed.stdout).not.toContain(webhook.secret);

    expect(JSON.parse((await cli('webhook', 'disable', 'acme', '1')).stdout)).toMatchObject({ id: 1, enabled: false });
    expect(JSON.parse((await cli('webhook', 'enable', 'acme', '1')).stdout)).toMatchObject({ id: 1, enabled: true, disabled_reason: null });

    const refused = await cli('webhook', 'create', 'acme', 'http://127.0.0.1/hook');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe('groupadmin: The url must be a public https address.\n');
    const unknownEntity = await cli('webhook', 'create', 'acme', 'https://93.184.215.14/hook', '--entities', 'nobody');
    expect(unknownEntity.status).toBe(1);
    expect((await cli('webhook', 'enable', 'acme', 'x')).stderr).toBe('groupadmin: id must be a positive whole number, not "x"\n');

    expect((await cli('webhook', 'delete', 'acme', '1')).stdout).toBe('webhook 1 deleted\n');
    const gone = await cli('webhook', 'delete', 'acme', '1');
    expect(gone.status).toBe(1);
    expect(gone.stderr).toBe('groupadmin: Webhook not found.\n');
    expect((await cli('webhook', 'list', 'nosuch')).stderr).toBe('groupadmin: tenant "nosuch" not found\n');
  });
});
