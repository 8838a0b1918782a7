import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rolesAndRootOf, rolesOfPerson, rootGroup } from '../../../src/modules/permissions/queries.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

describe('rolesAndRootOf', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  it('reads what rolesOfPerson and rootGroup read, also for a person without memberships', async () => {
    const db = t.storage.tenantDb('demo');
    const root = await t.rootGroupId('demo');
    const member = await t.addUser('demo', { username: 'member' });
    const loner = await t.addUser('demo', { username: 'loner' });
    await t.grant('demo', member.id, root, 'member');
    await t.grant('demo', member.id, root, 'admin', { startOn: '2020-01-01', endOn: '2020-12-31' });
    for (const person of [member.id, loner.id]) {
      const read = await rolesAndRootOf(db, person);
      const byGroupAndStart = (a: { startOn: string }, b: { startOn: string }) => a.startOn.localeCompare(b.startOn);
      expect(read.roles.sort(byGroupAndStart)).toEqual((await rolesOfPerson(db, person)).sort(byGroupAndStart));
      expect(read.root).toEqual(await rootGroup(db));
    }
    expect((await rolesAndRootOf(db, member.id)).roles).toHaveLength(2);
    expect((await rolesAndRootOf(db, loner.id)).roles).toEqual([]);
  });
});
