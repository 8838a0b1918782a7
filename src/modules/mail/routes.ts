import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { TenantDb, UserRow } from '../../db/types.js';
import { errors } from '../../errors.js';
import { IdParams, ok } from '../../http/before-body.js';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { forbiddenAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import { Envelope, ErrorSchema, NoContent } from '../../http/schemas.js';
import { canSeePerson, rightToChange, type Access } from '../permissions/rules.js';
import { findUserById } from '../users/rules.js';
import { emailStatusOf, resetEmailStatus } from './rules.js';
import { EmailStatusSchema } from './schemas.js';
import type { MailHub } from './settings.js';

export interface MailRouteOptions extends ResourceRouteOptions<Access> {
  mail: MailHub;
}

const tags = ['people'];
const notFound = { ...ErrorSchema, description: 'Person not found.' };

/** A person the caller sees (as GET /people/{id}), or 404 `Person not found.` as for an id that names no one. */
async function requireSeenPerson(db: TenantDb, access: Access, id: number | null): Promise<UserRow> {
  const person = id === null ? undefined : await findUserById(db, id);
  if (!person || !(await canSeePerson(db, access, Number(person.id)))) throw errors.notFound('Person');
  return person;
}

/** A person's mail status: GET and DELETE /people/{id}/email-status. */
const mailRoutes: FastifyPluginAsyncTypebox<MailRouteOptions> = async (app, { accessOf }) => {
  refuseUnknownQueryParameters(app);
  const personOf = async (request: FastifyRequest) => {
    const access = await accessOf(request);
    return { access, person: await requireSeenPerson(request.tenant.db, access, idOf(request)) };
  };

  app.get(
    '/people/:id/email-status',
    {
      config: { requires: 'people:read' },
      schema: {
        params: IdParams,
        tags,
        operationId: 'getEmailStatus',
        summary: "A person's mail status",
        description:
          "For whoever sees the person. `failing` after the third permanent refusal (SMTP 5xx) of the person's current address: no mail goes to it until the address changes or the status is reset. Refusals that arrive later as bounce mails are not counted.",
        response: { 200: Envelope(Type.Object({ email_status: EmailStatusSchema })), 404: notFound },
      },
    },
    async (request) => {
      const { person } = await personOf(request);
      return ok({ email_status: await emailStatusOf(request.tenant.db, person) });
    },
  );

  app.delete(
    '/people/:id/email-status',
    {
      config: { requires: 'people:write' },
      schema: {
        params: IdParams,
        tags,
        operationId: 'resetEmailStatus',
        summary: "Reset a person's mail status",
        description: 'For whoever may change the person: the address is ok again and the next mail goes to it.',
        response: { 204: NoContent, 403: forbiddenAnswer('the right to change the person needed'), 404: notFound },
      },
    },
    async (request, reply) => {
      const { access, person } = await personOf(request);
      if (!(await rightToChange(request.tenant.db, access, Number(person.id)))) throw errors.unauthorized();
      await resetEmailStatus(request.tenant.db, Number(person.id));
      return (reply as FastifyReply).code(204).send();
    },
  );
};

export default mailRoutes;
