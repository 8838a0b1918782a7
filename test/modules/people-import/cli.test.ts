import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerPeopleCommands } from '../../../src/cli/people.js';
import { buildImportWorld, csv, type ImportWorld } from './helpers.js';

/** `groupadmin people ...` in this process, on the test app's configuration; what it printed. */
async function groupadmin(w: ImportWorld, args: string[]): Promise<{ stdout: string; error: Error | null }> {
  const saved = { ...process.env };
  Object.assign(process.env, { DATA_DIR: w.t.dataDir, LOG_LEVEL: 'silent', DATABASE_URL: w.t.config.databaseUrl ?? '', REDIS_URL: '' });
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    done?.();
    return true;
  });
  const program = new Command('groupadmin').exitOverride();
  registerPeopleCommands(program);
  let error: Error | null = null;
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    error = err as Error;
  } finally {
    write.mockRestore();
    process.env = saved;
  }
  return { stdout: chunks.join(''), error };
}

describe('groupadmin people export / import', () => {
  let w: ImportWorld;
  beforeEach(async () => {
    w = await buildImportWorld();
  });
  afterEach(() => w.t.close());

  it('imports the sample file, with a dry run first, and exports what the API exports', async () => {
    const sample = join(import.meta.dirname, '../../../examples/members.csv');
    const dry = await groupadmin(w, ['people', 'import', 'demo', sample, '--group', String(w.troop), '--role', 'member', '--dry-run']);
    expect(dry.error).toBeNull();
    expect(JSON.parse(dry.stdout)).toEqual({ created: 3, updated: 0, unchanged: 0 });
    const before = await w.countPeople();
    const real = await groupadmin(w, ['people', 'import', 'demo', sample, '--group', String(w.troop), '--role', 'member']);
    expect(JSON.parse(real.stdout)).toEqual({ created: 3, updated: 0, unchanged: 0 });
    expect(await w.countPeople()).toBe(before + 3);
    const exported = await groupadmin(w, ['people', 'export', 'demo', '--group', String(w.troop)]);
    expect(exported.error).toBeNull();
    const api = await w.exportCsv('admin', `group_id=${w.troop}`);
    expect(exported.stdout).toBe(api.body);
    expect(exported.stdout).toContain("Léa,Dubois");
    expect(readFileSync(sample, 'utf8')).toContain(';');
  });

  it('prints every problem by row and fails, writing nothing', async () => {
    const file = join(w.t.dataDir, 'broken.csv');
    writeFileSync(file, csv('firstname,lastname,email', 'Mia,Kid,nope', 'Noah,Kid,'));
    const before = await w.countPeople();
    const result = await groupadmin(w, ['people', 'import', 'demo', file, '--group', String(w.troop), '--role', 'member']);
    expect(result.error?.message).toBe('The email field must be a valid email address.');
    expect(JSON.parse(result.stdout)).toEqual({ 'row 2': ['The email field must be a valid email address.'] });
    expect(await w.countPeople()).toBe(before);
  });
});
