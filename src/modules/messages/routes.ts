import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ResourceRouteOptions } from '../../http/route-kit.js';
import type { MailHub } from '../mail/settings.js';
import type { Access } from '../permissions/rules.js';

export interface MessageRouteOptions extends ResourceRouteOptions<Access> {
  mail: MailHub;
}

/** A leader's messages to a group or an event's participants: /messages. */
const messageRoutes: FastifyPluginAsyncTypebox<MessageRouteOptions> = async () => {};

export default messageRoutes;
