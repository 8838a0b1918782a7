import { hostOf, JSON_HEADERS, PASSWORD, type TestApp } from './app.js';

/**
 * In tenant demo: an admin at the root (logged in), a group "Region" below the root, and a member
 * of the region for each of `lastnames` (first name Kim), for tests of the people lists.
 */
export async function regionWithMembers(t: TestApp, lastnames: readonly string[]) {
  const root = await t.rootGroupId('demo');
  const admin = await t.addUser('demo', { username: 'admin', lastname: 'Admin' });
  await t.grant('demo', admin.id, root, 'admin');
  const token = await t.login('demo', 'admin', PASSWORD);
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/groups',
    headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` },
    payload: { parent_id: root, name: 'Region' },
  });
  if (created.statusCode !== 201) throw new Error(`the region was not created: ${created.statusCode} ${created.body}`);
  const region = created.json().data.group.id as number;
  const ids: Record<string, number> = {};
  for (const lastname of lastnames) {
    ids[lastname] = (await t.addUser('demo', { username: lastname.toLowerCase(), firstname: 'Kim', lastname })).id;
    await t.grant('demo', ids[lastname]!, region, 'member');
  }
  return { token, region, ids };
}
