import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../http/auth.js';
import { IdParams, ok } from '../../http/before-body.js';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import { ErrorSchema, NoContent } from '../../http/schemas.js';
import { attachment } from '../../lib/csv.js';
import { DISPOSITION_HEADER } from '../../http/download-format.js';
import { requireVisibleEvent } from '../events/rules.js';
import type { TenantLetterheads } from '../notifications/rules.js';
import type { Access } from '../permissions/rules.js';
import { createCalendarFiles } from './files.js';
import { ICS_MEDIA_TYPE } from './ics.js';
import { calendarNotFound } from './messages.js';
import { contentEtag, createFeed, endFeed, feedOf, feedUrl, matchesIfNoneMatch, recordFeedUse, resolveFeed, type ResolvedFeed } from './rules.js';
import { CACHE_CONTROL_HEADER, calendarFile, CalendarNotFound, FEED_ETAG_HEADER, FeedCreatedAnswer, FeedParams, FeedStatusAnswer, NotModified } from './schemas.js';

export interface CalendarRouteOptions extends ResourceRouteOptions<Access> {
  /** The tenant's name, language and time zone. */
  letterheads: TenantLetterheads;
  /** PUBLIC_URL, `{tenant}` standing for the slug: feed addresses, UIDs and links are made from it, never from the Host. */
  publicUrl: string;
  now?: () => Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** GET /calendar/<token>.ics: the feed its token opened (set before the route's checks). */
    calendarFeed?: ResolvedFeed;
  }
}

const tags = ['events'];
/** Calendars fetch on their own schedule; a quarter of an hour is what they ask for at most. */
const FEED_CACHE_CONTROL = 'private, max-age=900';

/** Calendar feeds (a secret address per person) and events as .ics files (docs/api/calendars-and-contacts.md). */
const calendarRoutes: FastifyPluginAsyncTypebox<CalendarRouteOptions> = async (app, { accessOf, letterheads, publicUrl, now = () => new Date() }) => {
  refuseUnknownQueryParameters(app);
  const files = createCalendarFiles({ letterheads, publicUrl });

  app.post(
    '/user/calendar',
    {
      config: { requires: 'events:read', takesNoBody: true },
      schema: {
        tags,
        operationId: 'createCalendarFeed',
        summary: 'Make my calendar feed address',
        description:
          "A secret address (`<PUBLIC_URL>/api/calendar/<token>.ics`) that a phone's or a web calendar subscribes to: the events the caller or a ward is registered for, and those open to them. Shown this once; a new one replaces the old, whose address answers 404 at once. Takes no body and no Idempotency-Key (the answer carries the secret).",
        response: { 201: FeedCreatedAnswer },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const token = await createFeed(tenant.db, callerOf(request).user.id, now());
      return reply.code(201).send(ok({ calendar: { url: feedUrl(publicUrl, tenant.slug, token) } }));
    },
  );

  app.get(
    '/user/calendar',
    {
      config: { requires: 'events:read' },
      schema: {
        tags,
        operationId: 'getCalendarFeed',
        summary: 'Whether I have a calendar feed',
        description: 'The feed\'s `created_at` and `last_used_at`, or `calendar: null`; never its address again.',
        response: { 200: FeedStatusAnswer },
      },
    },
    async (request) => ok({ calendar: await feedOf(request.tenant.db, callerOf(request).user.id) }),
  );

  app.delete(
    '/user/calendar',
    {
      config: { requires: 'events:read' },
      schema: {
        tags,
        operationId: 'deleteCalendarFeed',
        summary: 'End my calendar feed',
        description: 'Its address answers 404 from now on. 204 also when there is none.',
        response: { 204: { ...NoContent, description: 'Ended (or there was none)' } },
      },
    },
    async (request, reply) => {
      await endFeed(request.tenant.db, callerOf(request).user.id);
      return (reply as FastifyReply).code(204).send();
    },
  );

  /**
   * Before anything else of the route: the token opens a feed, which is then counted in its own
   * bucket (per tenant and feed); an unknown token counts against the address, then is 404.
   */
  const openFeed = async (request: FastifyRequest, reply: FastifyReply) => {
    const { tenant } = request;
    const token = (request.params as { token?: string }).token ?? '';
    const feed = await resolveFeed(tenant.db, token);
    if (!feed) {
      await app.countRequest(request, reply, 'address', `${tenant.slug}:${request.ip}`);
      throw calendarNotFound();
    }
    // Keyed by the hash: no secret in a counter's key (Redis keys can be listed).
    await app.countRequest(request, reply, 'calendar', `${tenant.slug}:${feed.tokenHash}`);
    request.calendarFeed = feed;
  };

  app.get(
    '/calendar/:token.ics',
    {
      config: { countsItself: true, csrf: 'never' },
      onRequest: openFeed,
      schema: {
        tags,
        operationId: 'getCalendarFeedFile',
        summary: 'A calendar feed',
        description:
          'The feed of the person who made the address (no other authentication): one VEVENT per event that the person or a ward is registered for (pending, accepted, waitlisted) or that is open for registration to one of them now, overlapping 30 days back to 18 months ahead, times in the tenant\'s zone. DESCRIPTION names the family by first name with their state, never notes. Counted per tenant and feed (RATE_LIMIT_CALENDAR a minute); an unknown token counts against the client address. ETag of the content, 304 on If-None-Match, Cache-Control: private, max-age=900.',
        security: [],
        params: FeedParams,
        response: {
          200: calendarFile('The feed', { ETag: FEED_ETAG_HEADER, 'Cache-Control': CACHE_CONTROL_HEADER }),
          304: NotModified,
          404: CalendarNotFound,
        },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const feed = request.calendarFeed!;
      const moment = now();
      const body = await files.feed(tenant.db, tenant.slug, feed.personId, moment);
      await recordFeedUse(tenant.db, feed, moment);
      const etag = contentEtag(body);
      const answer = (reply as FastifyReply).header('etag', etag).header('cache-control', FEED_CACHE_CONTROL);
      if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return answer.code(304).send();
      return answer.type(ICS_MEDIA_TYPE).send(body);
    },
  );

  app.get(
    '/events/:id.ics',
    {
      config: { requires: 'events:read' },
      schema: {
        params: IdParams,
        tags,
        operationId: 'getEventFile',
        summary: 'An event as an .ics file',
        description:
          'For whoever sees the event (else 404, as GET /events/{id}): the event as one VEVENT, its DESCRIPTION naming the caller\'s family registered in it by first name with their state. `Content-Disposition: attachment; filename="event-<id>.ics"`.',
        response: { 200: calendarFile('The event (attachment)', { 'Content-Disposition': DISPOSITION_HEADER }), 404: { ...ErrorSchema, description: 'Event not found.' } },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const access = await accessOf(request);
      const { event } = await requireVisibleEvent(tenant.db, access, idOf(request));
      const body = await files.event(tenant.db, tenant.slug, access.personId, event);
      // A file, not the JSON the type provider expects of a schema'd answer.
      return (reply as FastifyReply)
        .type(ICS_MEDIA_TYPE)
        .header('content-disposition', attachment(`event-${Number(event.id)}.ics`))
        .send(body);
    },
  );
};

export default calendarRoutes;
