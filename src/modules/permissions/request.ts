import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../http/auth.js';
import type { TenantCalendar } from './calendar.js';
import { accessOf, type Access } from './rules.js';

/** The caller's Access for a request: read once, however many checks the request makes. */
export function createRequestAccess(calendar: TenantCalendar): (request: FastifyRequest) => Promise<Access> {
  const seen = new WeakMap<FastifyRequest, Promise<Access>>();
  return (request) => {
    let access = seen.get(request);
    if (!access) {
      const { tenant } = request;
      access = calendar.today(tenant.slug).then((day) => accessOf(tenant.db, callerOf(request).user.id, day));
      seen.set(request, access);
    }
    return access;
  };
}
