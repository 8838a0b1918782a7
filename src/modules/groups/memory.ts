import { createTenantMemory, type TenantMemoryOptions } from '../../db/tenant-memory.js';
import type { GroupRow } from '../../db/types.js';
import { findGroup } from './queries.js';

/**
 * Groups' rows for the lists that name a group (`GET /people?group_id=`): what the list needs
 * of it is that it exists and its path, and the list's query checks again by the path as it
 * finds it that the group lies where the caller reads (people/queries.ts, groupStillReadable).
 */
export function createGroupMemory(options: TenantMemoryOptions) {
  return { groupOf: createTenantMemory<GroupRow | undefined>(findGroup, options) };
}

export type GroupMemory = ReturnType<typeof createGroupMemory>;
