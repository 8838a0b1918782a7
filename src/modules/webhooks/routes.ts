import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import Type from 'typebox';
import type { RegistryDatabase } from '../../db/types.js';
import { beforeBody, IdParams, ok } from '../../http/before-body.js';
import { etagOf } from '../../http/etag.js';
import { limitOf, PagingQuery } from '../../http/paging.js';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { Envelope, ErrorSchema, NoContent, ValidationErrorSchema } from '../../http/schemas.js';
import { requireAdminOnRoot } from '../role-types/rules.js';
import { listDeliveryRows, listWebhookRows } from './queries.js';
import { changeWebhook, createWebhook, pingWebhook, removeWebhook, requireWebhook, type WebhookContext } from './rules.js';
import { CreatedWebhookSchema, DeliverySchema, NewWebhookSchema, toApiCreatedWebhook, toApiDelivery, toApiWebhook, WebhookSchema, WebhookUpdateSchema } from './schemas.js';
import { forbiddenAnswer, changedAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import type { Access } from '../permissions/rules.js';

export interface WebhookRouteOptions extends ResourceRouteOptions<Access> {
  registry: Kysely<RegistryDatabase>;
  allowPrivate: boolean;
}

const tags = ['webhooks'];
const requires = 'webhooks:write';
const WebhookAnswer = Envelope(Type.Object({ webhook: WebhookSchema }));
const ListQuery = Type.Object(PagingQuery, { additionalProperties: false });
const forbidden = forbiddenAnswer('admin on the root needed');
const notFound = { ...ErrorSchema, description: 'Webhook not found.' };
const refusedUrl = { ...ValidationErrorSchema, description: 'The url must be a public https address.' };

/** Webhooks (docs/api/sync.md): all of it needs `webhooks:write` and `admin` on the root. */
const webhookRoutes: FastifyPluginAsyncTypebox<WebhookRouteOptions> = async (app, { cursorsOf, accessOf, registry, allowPrivate }) => {
  refuseUnknownQueryParameters(app);
  // admin on the root, checked before a body is read.
  const admin = beforeBody(async (request) => requireAdminOnRoot(await accessOf(request)));
  const contextOf = (request: FastifyRequest): WebhookContext => ({ db: request.tenant.db, registry, tenant: request.tenant.slug, allowPrivate });

  app.post(
    '/webhooks',
    {
      config: { requires, etag: true },
      preParsing: admin.preParsing,
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Create a webhook',
        description:
          'It receives the change records committed from now on, signed with `secret` (Standard Webhooks). The answer is the only one that shows the secret.',
        body: NewWebhookSchema,
        response: { 201: Envelope(Type.Object({ webhook: CreatedWebhookSchema })), 403: forbidden, 422: refusedUrl },
      },
    },
    async (request, reply) => {
      admin.found(request);
      const created = await createWebhook(contextOf(request), request.body);
      return reply.code(201).header('etag', etagOf(created.version)).send(ok({ webhook: toApiCreatedWebhook(created) }));
    },
  );

  app.get(
    '/webhooks',
    {
      config: { requires },
      preParsing: admin.preParsing,
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'List webhooks',
        description: 'Oldest first, without their secrets.',
        querystring: ListQuery,
        response: { 200: Envelope(Type.Object({ webhooks: Type.Array(WebhookSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) })), 403: forbidden },
      },
    },
    async (request) => {
      admin.found(request);
      const cursors = cursorsOf(request);
      const after = request.query.cursor === undefined ? null : Number(cursors.decode('webhooks', request.query.cursor)[0]);
      const limit = limitOf(request.query);
      const page = cursors.page('webhooks', await listWebhookRows(request.tenant.db, after, limit), limit, (row) => [Number(row.id)]);
      return ok({ webhooks: page.rows.map(toApiWebhook), next_cursor: page.nextCursor });
    },
  );

  app.get(
    '/webhooks/:id',
    {
      config: { requires, etag: true },
      preParsing: admin.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'getWebhook',
        summary: 'Show a webhook',
        description: 'Without its secret (only the answer that created it shows that). ETag: the version of the webhook.',
        response: { 200: WebhookAnswer, 403: forbidden, 404: notFound },
      },
    },
    async (request, reply) => {
      admin.found(request);
      const webhook = await requireWebhook(request.tenant.db, idOf(request));
      reply.header('etag', etagOf(webhook.version));
      return ok({ webhook: toApiWebhook(webhook) });
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { requires, etag: true, ifMatch: true },
      preParsing: admin.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'updateWebhook',
        summary: 'Change a webhook',
        description:
          '`url`, `entities`, `description`, `enabled`. Enabling a disabled webhook resumes it at the message it stopped at. Honours If-Match.',
        body: WebhookUpdateSchema,
        response: { 200: WebhookAnswer, 403: forbidden, 404: notFound, 412: changedAnswer, 422: refusedUrl },
      },
    },
    async (request, reply) => {
      admin.found(request);
      const updated = await changeWebhook(contextOf(request), idOf(request), request.body, request.headers['if-match']);
      reply.header('etag', etagOf(updated.version));
      return ok({ webhook: toApiWebhook(updated) });
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { requires, ifMatch: true },
      preParsing: admin.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook',
        description: 'With its delivery log. Honours If-Match.',
        response: { 204: NoContent, 403: forbidden, 404: notFound, 412: changedAnswer },
      },
    },
    async (request, reply) => {
      admin.found(request);
      await removeWebhook(request.tenant.db, idOf(request), request.headers['if-match']);
      return (reply as FastifyReply).code(204).send();
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { requires },
      preParsing: admin.preParsing,
      schema: {
        params: IdParams,
        querystring: ListQuery,
        tags,
        operationId: 'listWebhookDeliveries',
        summary: "A webhook's last delivery attempts",
        description: 'Newest first; the last 100 attempts are kept.',
        response: { 200: Envelope(Type.Object({ deliveries: Type.Array(DeliverySchema), next_cursor: Type.Union([Type.String(), Type.Null()]) })), 403: forbidden, 404: notFound },
      },
    },
    async (request) => {
      admin.found(request);
      const webhook = await requireWebhook(request.tenant.db, idOf(request));
      const cursors = cursorsOf(request);
      const list = `deliveries:${webhook.id}`;
      const before = request.query.cursor === undefined ? null : Number(cursors.decode(list, request.query.cursor)[0]);
      const limit = limitOf(request.query);
      const page = cursors.page(list, await listDeliveryRows(request.tenant.db, Number(webhook.id), before, limit), limit, (row) => [Number(row.id)]);
      return ok({ deliveries: page.rows.map(toApiDelivery), next_cursor: page.nextCursor });
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      config: { requires, takesNoBody: true },
      preParsing: admin.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'pingWebhook',
        summary: 'Send a ping',
        description:
          'Sends one signed `ping` now (enabled or not) and answers how it went; it is logged with the deliveries and not retried. Waits for the receiver for at most 10 s.',
        response: { 200: Envelope(Type.Object({ delivery: DeliverySchema })), 403: forbidden, 404: notFound },
      },
    },
    async (request) => {
      admin.found(request);
      return ok({ delivery: toApiDelivery(await pingWebhook(contextOf(request), idOf(request))) });
    },
  );
};

export default webhookRoutes;
