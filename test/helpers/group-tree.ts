import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../../src/db/types.js';
import { toDbTimestamp } from '../../src/lib/time.js';

/**
 * Replaces the tenant's groups below the root by a tree given as parent indexes (`parents[0]` is
 * the root, -1; group i hangs below group `parents[i]` < i), with materialised paths. Memberships
 * go first (they name the groups). Returns each group's id and path, by index.
 */
export async function replaceGroupTree(db: Kysely<TenantDatabase>, rootId: number, parents: readonly number[]): Promise<{ groupIds: number[]; paths: string[] }> {
  const now = toDbTimestamp(new Date());
  await db.deleteFrom('memberships').execute();
  await db.deleteFrom('groups').where('id', '!=', rootId).execute();
  const groupIds = [rootId];
  const paths = [`/${rootId}/`];
  for (let i = 1; i < parents.length; i++) {
    const parent = parents[i]!;
    const { id } = await db
      .insertInto('groups')
      .values({ parent_id: groupIds[parent]!, name: `g${i}`, name_key: `g${i}`, kind: '', description: null, path: '', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    groupIds.push(Number(id));
    paths.push(`${paths[parent]}${Number(id)}/`);
    await db.updateTable('groups').set({ path: paths[i]! }).where('id', '=', Number(id)).execute();
  }
  return { groupIds, paths };
}
