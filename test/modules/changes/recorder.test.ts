import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { noteCreated, transact } from '../../../src/recording/recorder.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

/** Every committed change has one record, numbered without gaps. */
describe('transact', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  const records = () => t.storage.tenantDb('demo').selectFrom('change_records').select(['seq', 'entity_id']).orderBy('seq').execute();
  const lastSeq = async () =>
    Number((await t.storage.tenantDb('demo').selectFrom('change_sequence').select('last_seq').where('id', '=', 1).executeTakeFirstOrThrow()).last_seq);

  it('numbers the records of one transaction in the order noted, across several insert statements', async () => {
    const before = await lastSeq();
    // 1,201 records: three statements of at most 500 rows, then one of a single record.
    await transact(t.storage.tenantDb('demo'), null, async (trx) => {
      for (let i = 1; i <= 1201; i++) noteCreated(trx, 'group', i);
    });
    await transact(t.storage.tenantDb('demo'), null, async (trx) => noteCreated(trx, 'group', 'after'));
    const written = (await records()).filter((record) => Number(record.seq) > before);
    expect(written.map((record) => Number(record.seq))).toEqual(Array.from({ length: 1202 }, (_, i) => before + 1 + i));
    expect(written.map((record) => record.entity_id)).toEqual([...Array.from({ length: 1201 }, (_, i) => String(i + 1)), 'after']);
    expect(await lastSeq()).toBe(before + 1202);
  });

  it('leaves neither records nor a moved sequence when writing the records fails', async () => {
    const before = await lastSeq();
    await expect(
      transact(t.storage.tenantDb('demo'), null, async (trx) => {
        noteCreated(trx, 'group', 1);
        noteCreated(trx, 'group', 2);
        // Takes the number the recorder gives the first record: its own insert then fails.
        await trx
          .insertInto('change_records')
          .values({ seq: before + 1, entity: 'group', entity_id: 'x', action: 'created', at: '2026-01-01 00:00:00', actor_id: null, person_id: null, other_person_id: null, changes: '{}' })
          .execute();
      }),
    ).rejects.toThrow();
    expect(await lastSeq()).toBe(before);
    expect((await records()).filter((record) => Number(record.seq) > before)).toEqual([]);
  });

  it('refuses to write records without the sequence row, rather than numbering them some other way', async () => {
    const before = await lastSeq();
    await expect(
      transact(t.storage.tenantDb('demo'), null, async (trx) => {
        await trx.deleteFrom('change_sequence').execute();
        noteCreated(trx, 'group', 1);
      }),
    ).rejects.toThrow();
    expect(await lastSeq()).toBe(before);
    expect((await records()).filter((record) => Number(record.seq) > before)).toEqual([]);
  });
});
