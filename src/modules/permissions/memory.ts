import { createTenantMemory, type TenantMemoryOptions } from '../../db/tenant-memory.js';
import { readRoleFacts } from './rules.js';

/**
 * The callers' roles. Only the memberships are kept, never a day's verdict: a membership ends at
 * midnight without any write, and the tenant's day (with its time zone) is asked on every request.
 */
export function createRoleMemory(options: TenantMemoryOptions) {
  return { factsOf: createTenantMemory(readRoleFacts, options) };
}

export type RoleMemory = ReturnType<typeof createRoleMemory>;
