import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../plugins/auth.js';
import { UserSchema } from '../schemas.js';

/**
 * GET /user (api.md 4.2): the caller's own record, flat, no envelope. The verifier formatted it
 * when it read the token row, so a busy token formats its user once.
 */
export default async function getUserRoute(app: FastifyInstance) {
  app.get('/user', { config: { requires: 'user:read' }, schema: { response: { 200: UserSchema } } }, async (request) =>
    callerOf(request).user,
  );
}
