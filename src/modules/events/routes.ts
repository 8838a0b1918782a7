import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { beforeBody, IdParams, ok } from '../../http/before-body.js';
import { etagOf } from '../../http/etag.js';
import { limitOf } from '../../http/paging.js';
import { Envelope, NoContent, ValidationErrorSchema } from '../../http/schemas.js';
import { firstAcceptedType, JsonOrFile, varyOn } from '../../http/download-format.js';
import { attachment } from '../../lib/csv.js';
import type { EventRow, TenantDb } from '../../db/types.js';
import { changeEvent, createEvent, listEvents, removeEvent, requireManagedEvent, requireVisibleEvent } from './rules.js';
import { EventListQuery, EventSchema, EventUpdateSchema, NewEventSchema, toApiEvent } from './schemas.js';
import { forbiddenAnswer, changedAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import type { Access } from '../permissions/rules.js';
import type { MailHub } from '../mail/settings.js';
import type { TenantLetterheads } from '../notifications/rules.js';

export interface EventRouteOptions extends ResourceRouteOptions<Access> {
  /** A new date or place, and promotions by a raised capacity, are told by mail (notifications module). */
  mail: MailHub;
  letterheads: TenantLetterheads;
  /**
   * The event as an .ics file with the caller's family in it (GET /events/{id} with `Accept:
   * text/calendar`). Made by the calendars module, which reads this one: handed in by the app, so
   * that the two modules do not import each other.
   */
  eventFile: (db: TenantDb, slug: string, personId: number, event: EventRow) => Promise<Buffer>;
}

const ICS_MEDIA_TYPE = 'text/calendar';

const tags = ['events'];
const EventAnswer = Envelope(Type.Object({ event: EventSchema }));
const forbidden = forbiddenAnswer('not a manager of the event');

/** The events module's routes (docs/api/events-and-registration.md). */
const eventRoutes: FastifyPluginAsyncTypebox<EventRouteOptions> = async (app, { cursorsOf, accessOf, mail, letterheads, eventFile }) => {
  refuseUnknownQueryParameters(app);
  app.get(
    '/events',
    {
      config: { requires: 'events:read' },
      schema: {
        tags,
        operationId: 'listEvents',
        summary: 'List events',
        description:
          'The events the caller sees, by `starts_at`, then id. Filters: `group_id` (+ `below=true`: its subtree too), `from`/`to` (events overlapping that span), `q` (name contains, ignoring case and accents).',
        querystring: EventListQuery,
        response: { 200: Envelope(Type.Object({ events: Type.Array(EventSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) })) },
      },
    },
    async (request) => {
      const cursors = cursorsOf(request);
      const page = await listEvents(request.tenant.db, await accessOf(request), request.query, limitOf(request.query), cursors);
      return ok({ events: page.rows.map(toApiEvent), next_cursor: page.nextCursor });
    },
  );

  app.get(
    '/events/:id',
    {
      config: { requires: 'events:read', etag: true },
      schema: {
        params: IdParams,
        tags,
        operationId: 'getEvent',
        summary: 'An event',
        description:
          'For members of its group or below, participants, the guardians of these, and those with `read` on its group. ETag: the version of the event. With `Accept: text/calendar` the event as an .ics file, as GET /events/{id}.ics answers it.',
        response: {
          200: JsonOrFile(EventAnswer, {
            mediaType: ICS_MEDIA_TYPE,
            description:
              'iCalendar (RFC 5545): the event as one VEVENT, its DESCRIPTION naming the caller\'s family registered in it. `Content-Disposition: attachment; filename="event-<id>.ics"`.',
          }),
        },
      },
    },
    async (request, reply) => {
      const { db, slug } = request.tenant;
      const access = await accessOf(request);
      const { event } = await requireVisibleEvent(db, access, idOf(request));
      reply.header('etag', etagOf(event.version));
      // Two representations under one address and one ETag: a cache must keep them apart.
      varyOn(reply, 'Accept');
      if (firstAcceptedType(request) === ICS_MEDIA_TYPE) {
        const body = await eventFile(db, slug, access.personId, event);
        // A file, not the JSON the type provider expects of a schema'd answer.
        return (reply as FastifyReply)
          .type(`${ICS_MEDIA_TYPE}; charset=utf-8`)
          .header('content-disposition', attachment(`event-${Number(event.id)}.ics`))
          .send(body);
      }
      return ok({ event: toApiEvent(event) });
    },
  );

  app.post(
    '/events',
    {
      config: { requires: 'events:write', etag: true },
      schema: {
        tags,
        operationId: 'createEvent',
        summary: 'Create an event',
        description: 'Needs `write` on `group_id` (the managers of an event are those with `write` on its group).',
        body: NewEventSchema,
        response: { 201: EventAnswer, 403: forbidden },
      },
    },
    async (request, reply) => {
      const event = await createEvent(request.tenant.db, await accessOf(request), request.body);
      return reply.code(201).header('etag', etagOf(event.version)).send(ok({ event: toApiEvent(event) }));
    },
  );

  // Seen (404), then managed (403), before the body is read.
  const managed = beforeBody(async (request) => {
    const access = await accessOf(request);
    return { access, ...(await requireManagedEvent(request.tenant.db, access, idOf(request))) };
  });

  app.patch(
    '/events/:id',
    {
      config: { requires: 'events:write', etag: true, ifMatch: true },
      preParsing: managed.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'updateEvent',
        summary: 'Change an event',
        description:
          'Managers. `capacity` may not drop below the accepted participants; a raised capacity accepts the first of the waiting list. A move (`group_id`) needs `write` on the new group too. Honours If-Match.',
        body: EventUpdateSchema,
        response: { 200: EventAnswer, 403: forbidden, 412: changedAnswer },
      },
    },
    async (request, reply) => {
      const { access, ...found } = managed.found(request);
      const notifier = { hub: mail, letterhead: await letterheads.of(request.tenant.slug) };
      const updated = await changeEvent(request.tenant.db, access, found, request.body, request.headers['if-match'], notifier);
      reply.header('etag', etagOf(updated.version));
      return ok({ event: toApiEvent(updated) });
    },
  );

  app.delete(
    '/events/:id',
    {
      config: { requires: 'events:write', ifMatch: true },
      preParsing: managed.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'deleteEvent',
        summary: 'Delete an event',
        description: 'Managers; not while a participation is pending, accepted or waitlisted. Honours If-Match.',
        response: { 204: NoContent, 403: forbidden, 412: changedAnswer, 422: { ...ValidationErrorSchema, description: 'The event has participants.' } },
      },
    },
    async (request, reply) => {
      const { access, ...found } = managed.found(request);
      await removeEvent(request.tenant.db, access, found, request.headers['if-match']);
      return (reply as FastifyReply).code(204).send();
    },
  );
};

export default eventRoutes;
