import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createStorage } from '../../src/db/index.js';
import { toDbTimestamp } from '../../src/lib/time.js';
import { runCli } from '../helpers/processes.js';
import { testServices, type TestServices } from '../helpers/services.js';

/** `groupadmin event list` and `groupadmin event participants`. */
describe('groupadmin event commands', () => {
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
  const cli = (args: string[]) => runCli(args, env);

  /** A camp with one accepted participant whose name a spreadsheet would run, and one on the waiting list. */
  async function camp(): Promise<{ eventId: number; troopId: number }> {
    expect((await cli(['tenant', 'create', 'acme'])).status).toBe(0);
    const root = (await cli(['group', 'list', 'acme'])).stdout.split('\t')[0]!;
    const troop = JSON.parse((await cli(['group', 'create', 'acme', 'Troop', '--parent', root])).stdout) as { id: number };
    const storage = await createStorage(loadConfig({ LOG_LEVEL: 'silent', ...env }));
    try {
      const db = storage.tenantDb('acme');
      const now = toDbTimestamp(new Date());
      const person = async (firstname: string, lastname: string) =>
        Number((await db.insertInto('users').values({
          username: null, email: null, firstname, lastname, lastname_key: lastname.toLowerCase(), firstname_key: firstname.toLowerCase(),
          gender_id: null, type_id: null, phonenumber: '+41 31 000', phonenumber_mobile: null, street: null, housenumber: null, zip: null, city: null,
          is_vegetarian: 1, can_swimm: 0, password: null, is_active: 1, birthday: null, created_at: now, updated_at: now,
        }).returning('id').executeTakeFirstOrThrow()).id);
      const mia = await person('Mia', '=Berg, "the 1st"');
      const noah = await person('Noah', 'Berg');
      const event = await db.insertInto('events').values({
        group_id: troop.id, name: 'Summer camp', name_key: 'summer camp', description: null, location: null, starts_at: '2031-07-01 08:00:00.000000',
        ends_at: '2031-07-08 16:00:00.000000', registration_opens_at: null, registration_closes_at: null, capacity: 1, waiting_list: 1,
        requires_approval: 0, participants_count: 1, waitlist_count: 1, created_at: now, updated_at: now,
      }).returning('id').executeTakeFirstOrThrow();
      await db.insertInto('participations').values([
        { event_id: event.id, person_id: mia, role: 'participant', state: 'accepted', waitlist_position: null, attended: null, notes: 'nuts\nand bees', created_at: now, updated_at: now },
        { event_id: event.id, person_id: noah, role: 'participant', state: 'waitlisted', waitlist_position: 1, attended: null, notes: null, created_at: now, updated_at: now },
      ]).execute();
      return { eventId: Number(event.id), troopId: troop.id };
    } finally {
      await storage.close();
    }
  }

  it('lists events and participants, and prints the participant CSV', async () => {
    const { eventId, troopId } = await camp();
    const list = await cli(['event', 'list', 'acme']);
    expect(list).toMatchObject({ status: 0, stderr: '' });
    expect(list.stdout).toBe(`${eventId}\t${troopId}\t2031-07-01T08:00:00.000000Z\t2031-07-08T16:00:00.000000Z\t1/1\t1\tSummer camp\n`);
    expect((await cli(['event', 'list', 'acme', '--group', String(troopId)])).stdout).toContain('Summer camp');
    const participants = await cli(['event', 'participants', 'acme', String(eventId)]);
    expect(participants.status).toBe(0);
    expect(participants.stdout.trim().split('\n').map((line) => line.split('\t').slice(2, 5))).toEqual([
      ['participant', 'accepted', '-'],
      ['participant', 'waitlisted', '1'],
    ]);
    const csv = await cli(['event', 'participants', 'acme', String(eventId), '--csv']);
    expect(csv.status).toBe(0);
    expect(csv.stdout.startsWith('id,person_id,firstname,lastname,role,state,waitlist_position,attended,is_vegetarian,can_swimm,email,phonenumber,phonenumber_mobile,notes\r\n')).toBe(true);
    const rows = parse(csv.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => [row.lastname, row.state, row.waitlist_position, row.is_vegetarian, row.can_swimm, row.phonenumber, row.notes])).toEqual([
      ["'=Berg, \"the 1st\"", 'accepted', '', 'true', 'false', "'+41 31 000", 'nuts\nand bees'],
      ['Berg', 'waitlisted', '1', 'true', 'false', "'+41 31 000", ''],
    ]);
  });

  it('names what is missing in one line, and shows help', async () => {
    expect((await cli(['tenant', 'create', 'acme'])).status).toBe(0);
    expect(await cli(['event', 'participants', 'acme', '999'])).toMatchObject({ status: 1, stderr: 'groupadmin: Event not found.\n' });
    expect(await cli(['event', 'list', 'acme', '--group', '999'])).toMatchObject({ status: 1, stderr: 'groupadmin: Group not found.\n' });
    expect(await cli(['event', 'list', 'nowhere'])).toMatchObject({ status: 1, stderr: 'groupadmin: tenant "nowhere" not found\n' });
    expect((await cli(['event', 'participants', 'acme'])).status).toBe(2);
    expect(await cli(['event', '--help'])).toMatchObject({ status: 0 });
    expect((await cli(['event', 'participants', '--help'])).stdout).toContain('--csv');
  });
});
