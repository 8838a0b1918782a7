import type { FastifyInstance } from 'fastify';
import { toApiUserOnce } from '../../domain/users.js';
import { callerOf } from '../../plugins/auth.js';
import { UserSchema } from '../schemas.js';

/** GET /user (api.md 4.2): the caller's own record, flat, no envelope. */
export default async function getUserRoute(app: FastifyInstance) {
  app.get('/user', { config: { requires: 'user:read' }, schema: { response: { 200: UserSchema } } }, async (request) =>
    toApiUserOnce(callerOf(request).user),
  );
}
