import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { IdParams, ok } from '../../http/before-body.js';
import { BULK_BODY_LIMIT } from '../../http/bulk.js';
import { bodyCheckedBy } from '../../http/json-body.js';
import { limitOf } from '../../http/paging.js';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { forbiddenAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import { Envelope, ErrorSchema, TooManyAttemptsSchema, ValidationErrorSchema } from '../../http/schemas.js';
import type { MailHub } from '../mail/settings.js';
import type { TenantLetterheads } from '../notifications/rules.js';
import type { Access } from '../permissions/rules.js';
import { listMessages, readMessage, sendMessage, type MessageContext } from './rules.js';
import { checkMessageBody, MessageListQuery, MessageSchema, MessageWithRecipientsSchema, NewMessageSchema } from './schemas.js';

export interface MessageRouteOptions extends ResourceRouteOptions<Access> {
  mail: MailHub;
  letterheads: TenantLetterheads;
}

const tags = ['messages'];
const requires = 'messages:write';
const forbidden = forbiddenAnswer('write on the group, or a manager of the event');
const tooMany = {
  ...TooManyAttemptsSchema,
  description: 'More than MESSAGES_PER_HOUR messages by the sender in the last 60 minutes, or MAIL_RECIPIENTS_PER_DAY recipients in the tenant\'s day (then retry_after runs to its midnight)',
};

/** A leader's messages to a group or an event's participants: /messages. */
const messageRoutes: FastifyPluginAsyncTypebox<MessageRouteOptions> = async (app, { cursorsOf, accessOf, mail, letterheads }) => {
  refuseUnknownQueryParameters(app);
  const contextOf = async (request: FastifyRequest): Promise<MessageContext> => ({ hub: mail, letterhead: await letterheads.of(request.tenant.slug) });

  app.post(
    '/messages',
    {
      config: { requires },
      bodyLimit: BULK_BODY_LIMIT,
      validatorCompiler: bodyCheckedBy(checkMessageBody),
      schema: {
        tags,
        operationId: 'sendMessage',
        summary: 'Write to a group or to the participants of an event',
        description:
          '`to` is `{group_id, below?, role_types?, guardians?}` (`write` on the group; with `below: true` on every group of its subtree; its members active today) or `{event_id, states?, guardians?}` (managers of the event; its participations in `states`, default accepted). `guardians`: include (default: the members, and for members without an e-mail or under 18 their guardians), only (the guardians alone), none. Each address once; the sender is never a recipient and gets one copy. A failing address is `failed`; a person with neither an e-mail nor a guardian with one is `unreachable`. Mails come from "<sender> via <tenant>", Reply-To the sender. Takes part in Idempotency-Key; bodies up to 1 MiB.',
        body: NewMessageSchema,
        response: {
          201: Envelope(Type.Object({ message: MessageSchema })),
          403: forbidden,
          404: { ...ErrorSchema, description: 'Group not found. / Event not found.' },
          422: { ...ValidationErrorSchema, description: 'Among others: The subject field must not contain line breaks.' },
          429: tooMany,
        },
      },
    },
    async (request, reply) => {
      const message = await sendMessage(request.tenant.db, await accessOf(request), await contextOf(request), request.body as never);
      return reply.code(201).send(ok({ message }));
    },
  );

  app.get(
    '/messages',
    {
      config: { requires },
      schema: {
        tags,
        operationId: 'listMessages',
        summary: 'Messages sent: to a group, to an event, or by the caller',
        description:
          '`group_id`: the messages to that group (`write` on it); `event_id`: to that event (its managers; an event not seen is 404); neither: the caller\'s own. Newest first, without recipients; keyset paging.',
        querystring: MessageListQuery,
        response: {
          200: Envelope(Type.Object({ messages: Type.Array(MessageSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) })),
          403: forbidden,
          404: { ...ErrorSchema, description: 'Group not found. / Event not found.' },
        },
      },
    },
    async (request) => {
      const page = await listMessages(request.tenant.db, await accessOf(request), request.query, limitOf(request.query), cursorsOf(request));
      return ok({ messages: page.rows, next_cursor: page.nextCursor });
    },
  );

  app.get(
    '/messages/:id',
    {
      config: { requires },
      schema: {
        params: IdParams,
        tags,
        operationId: 'getMessage',
        summary: 'A message with its recipients',
        description:
          'For the sender and those who could send to its target. `recipients` last, in name order, then id: `{person_id, name, email, state, error}` (queued, sent, failed, unreachable; a guardian\'s entry carries the guardian\'s id; erased people show person_id null and name [erased]).',
        response: { 200: Envelope(Type.Object({ message: MessageWithRecipientsSchema })), 404: { ...ErrorSchema, description: 'Message not found.' } },
      },
    },
    async (request) => ok({ message: await readMessage(request.tenant.db, await accessOf(request), idOf(request)) }),
  );
};

export default messageRoutes;
