import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rolesAndRootOf } from '../../../src/modules/permissions/queries.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

describe('rolesAndRootOf', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  it('reads every membership of the person with its permission, and the root, also for a person without memberships', async () => {
    const db = t.storage.tenantDb('demo');
    const root = await t.rootGroupId('demo');
    const member = await t.addUser('demo', { username: 'member' });
    const loner = await t.addUser('demo', { username: 'loner' });
    await t.grant('demo', member.id, root, 'member', { startOn: '2021-01-01' });
    await t.grant('demo', member.id, root, 'admin', { startOn: '2020-01-01', endOn: '2020-12-31' });
    const rootGroup = { id: root, path: `/${root}/` };
    const read = await rolesAndRootOf(db, member.id);
    expect(read.root).toEqual(rootGroup);
    expect(read.roles.sort((a, b) => a.startOn.localeCompare(b.startOn))).toEqual([
      { groupId: root, groupPath: `/${root}/`, permission: 'admin', scope: 'subtree', startOn: '2020-01-01', endOn: '2020-12-31' },
      { groupId: root, groupPath: `/${root}/`, permission: 'none', scope: 'group', startOn: '2021-01-01', endOn: null },
    ]);
    expect(await rolesAndRootOf(db, loner.id)).toEqual({ roles: [], root: rootGroup });
  });
});
