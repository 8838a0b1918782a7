import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../http/auth.js';
import type { TenantCalendar } from './calendar.js';
import type { RoleMemory } from './memory.js';
import { accessFrom, type Access } from './rules.js';

/** The caller's Access for a request: read once, however many checks the request makes. */
export function createRequestAccess(calendar: TenantCalendar, roles: RoleMemory): (request: FastifyRequest) => Promise<Access> {
  const seen = new WeakMap<FastifyRequest, Promise<Access>>();
  return (request) => {
    let access = seen.get(request);
    if (!access) {
      const { tenant } = request;
      const personId = callerOf(request).user.id;
      access = Promise.all([calendar.today(tenant.slug), roles.factsOf(tenant.slug, tenant.db, personId)]).then(([day, facts]) =>
        accessFrom(personId, day, facts),
      );
      seen.set(request, access);
    }
    return access;
  };
}
