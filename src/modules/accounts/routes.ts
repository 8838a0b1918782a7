import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ResourceRouteOptions } from '../../http/route-kit.js';
import type { MailHub } from '../mail/settings.js';
import type { Access } from '../permissions/rules.js';

export interface AccountRouteOptions extends ResourceRouteOptions<Access> {
  mail: MailHub;
  tokenPrefix: string;
  sessions: { idleMs: number; rememberMs: number };
}

/** Password reset and invitations: /password/forgot, /password/reset, /people/{id}/invitation, /invitation/check|accept. */
const accountRoutes: FastifyPluginAsyncTypebox<AccountRouteOptions> = async () => {};

export default accountRoutes;
