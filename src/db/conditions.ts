import { sql, type Expression, type SqlBool } from 'kysely';
import type { Day } from '../lib/time.js';

// SQL conditions that several modules' queries share: the two facts the whole data model leans
// on, written once. A membership's dates and a group's place in the tree (its materialised path,
// the ids from the root down to the group itself, e.g. "/1/4/9/") are read the same way by the
// permission rule, the people lists, the events a person sees and the group tree.

/** The membership `alias` is active on `day`: started on or before it, and not ended before it. */
export function activeOn(alias: string, day: Day): Expression<SqlBool> {
  const ref = (column: string) => sql.ref(`${alias}.${column}`);
  return sql<SqlBool>`(${ref('start_on')} <= ${day} and (${ref('end_on')} is null or ${ref('end_on')} >= ${day}))`;
}

/**
 * The groups (alias `g`) at or below one of `subtreePaths`, or among `groupIds`: the groups a
 * caller may read. "At or below" is a range on the materialised path, so it uses its index:
 * every path below "/1/4/" lies in ["/1/4/", "/1/40") (paths hold only digits and "/").
 */
export function groupAmong(alias: string, subtreePaths: readonly string[], groupIds: readonly number[]): Expression<SqlBool> {
  const parts = subtreePaths.map((path) => sql`(${sql.ref(`${alias}.path`)} >= ${path} and ${sql.ref(`${alias}.path`)} < ${pathUpperBound(path)})`);
  if (groupIds.length > 0) parts.push(sql`${sql.ref(`${alias}.id`)} in (${sql.join(groupIds)})`);
  if (parts.length === 0) return sql<SqlBool>`1 = 0`;
  return sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
}

/** The first string after every path that starts with `path` ("/1/4/" -> "/1/40"). */
export const pathUpperBound = (path: string): string => `${path.slice(0, -1)}0`;
