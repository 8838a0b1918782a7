import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ResourceRouteOptions } from '../../http/route-kit.js';
import type { Access } from '../permissions/rules.js';
import type { MailHub } from './settings.js';

export interface MailRouteOptions extends ResourceRouteOptions<Access> {
  mail: MailHub;
}

/** A person's mail status: GET and DELETE /people/{id}/email-status. */
const mailRoutes: FastifyPluginAsyncTypebox<MailRouteOptions> = async () => {};

export default mailRoutes;
