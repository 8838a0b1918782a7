import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { hasAbility } from '../../http/abilities.js';
import { atLeast } from '../permissions/levels.js';
import { errors } from '../../errors.js';
import { callerOf } from '../../http/auth.js';
import { beforeBody, IdParams, ok } from '../../http/before-body.js';
import { downloadFormatOf, JsonOrFiles, sendDownload } from '../../http/download-format.js';
import { etagOf } from '../../http/etag.js';
import { limitOf } from '../../http/paging.js';
import { Envelope } from '../../http/schemas.js';
import { requireVisibleEvent, viewerOf } from '../events/rules.js';
import { guardiansOfWards, householdOf, type Access, canSeePerson } from '../permissions/rules.js';
import { PARTICIPANT_COLUMNS, participantsDownload } from './csv.js';
import { listEventParticipations, listPersonParticipations, participantKey, personExists } from './queries.js';
import { changeParticipation, register, requireVisibleParticipation, summaryOf } from './rules.js';
import { changeMany, registerMany, requireManager } from './bulk.js';
import { BULK_BODY_LIMIT } from '../../http/bulk.js';
import { bodyCheckedBy } from '../../http/json-body.js';
import {
  BulkRegistrationSchema,
  checkBulkRegistration,
  checkChangesBody,
  checkRegistrationBody,
  ParticipationChangeListSchema,
  EventParticipationsQuery,
  NewParticipationSchema,
  PARTICIPATION_FORMATS,
  ParticipationSchema,
  ParticipationUpdateSchema,
  PersonParticipationsQuery,
  SummarySchema,
  toApiParticipation,
  withDetails,
  type NewParticipation,
} from './schemas.js';
import { forbiddenAnswer, changedAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import { mayReadNotes } from './notes.js';
import type { MailHub } from '../mail/settings.js';
import type { Notifier, TenantLetterheads } from '../notifications/rules.js';

export interface ParticipationRouteOptions extends ResourceRouteOptions<Access> {
  /** Registrations and changes of state are told by mail (notifications module). */
  mail: MailHub;
  letterheads: TenantLetterheads;
}

const tags = ['participations'];
const ParticipationAnswer = Envelope(Type.Object({ participation: ParticipationSchema }));
const ParticipationListAnswer = Envelope(Type.Object({ participations: Type.Array(ParticipationSchema) }));
const ParticipationList = Envelope(
  Type.Object({
    participations: Type.Array(ParticipationSchema),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    summary: Type.Optional({ ...SummarySchema, description: 'With include=details, on the first page' }),
  }),
);
const forbidden = forbiddenAnswer();
const tokenMayWrite = (request: FastifyRequest) => hasAbility(callerOf(request).abilities, 'events:write');

/**
 * Participation answers keep `notes` in its place (after `attended`) also
 * where it is left out: fast-json-stringify writes optional fields after the required ones, so
 * these answers are written with JSON.stringify, in the order the item was built.
 */
const sendInOrder = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));

/** The participations module's routes (docs/api/events-and-registration.md). */
const participationRoutes: FastifyPluginAsyncTypebox<ParticipationRouteOptions> = async (app, { cursorsOf, accessOf, mail, letterheads }) => {
  refuseUnknownQueryParameters(app);
  const notifierOf = async (request: FastifyRequest): Promise<Notifier> => ({ hub: mail, letterhead: await letterheads.of(request.tenant.slug) });
  const seeEvent = async (request: FastifyRequest) => {
    const access = await accessOf(request);
    return { access, ...(await requireVisibleEvent(request.tenant.db, access, idOf(request))) };
  };
  const visibleEvent = beforeBody(seeEvent);

  app.post(
    '/events/:id/participations',
    {
      config: { requires: 'events:read', etag: true },
      bodyLimit: BULK_BODY_LIMIT,
      preParsing: visibleEvent.preParsing,
      validatorCompiler: bodyCheckedBy(checkRegistrationBody),
      schema: {
        params: IdParams,
        tags,
        operationId: 'register',
        summary: 'Register for an event, or register several people',
        description:
          'Oneself or a ward (`events:read`) who may take part (an active membership in the event\'s group or below it, or `read` on it), while registration is open (until `registration_closes_at`, or the start); or, for managers with `events:write`, any person they see, in any role, at any time. The answer\'s state: pending (approval needed), accepted, or waitlisted; else 422 The event is full. ' +
          'With `person_ids` (1-200, no repeats) instead of `person_id`: managers with `events:write` register several people in the order given, exactly as single registrations one after the other; all or nothing (a refused person is a 422 entry `person_ids.<i>`, and no one is registered); answer 201 `{participations: [...]}` in the order given, without ETag.',
        body: Type.Union([NewParticipationSchema, BulkRegistrationSchema]),
        response: { 201: Type.Union([ParticipationAnswer, ParticipationListAnswer]), 403: forbidden },
      },
    },
    async (request, reply) => {
      const { access, ...found } = visibleEvent.found(request);
      const body = request.body;
      if ('person_ids' in body) {
        // The request as a whole first (ability, manager), then its list.
        requireManager(found, tokenMayWrite(request));
        const bulk = checkBulkRegistration(body);
        if (!bulk.ok) throw errors.validation(bulk.fieldErrors);
        const rows = await registerMany(request.tenant.db, access, found, bulk.value.person_ids, bulk.value.role ?? 'participant', await notifierOf(request));
        return sendInOrder(reply, 201, ok({ participations: rows.map((row) => toApiParticipation(row, mayReadNotes({ manager: true, ownOrWard: false }))) }));
      }
      const created = await register(request.tenant.db, access, found, tokenMayWrite(request), body, await notifierOf(request));
      const ownOrWard = !found.manager && (await householdOf(request.tenant.db, access)).personIds.includes(Number(created.person_id));
      const participation = toApiParticipation(created, mayReadNotes({ manager: found.manager, ownOrWard }));
      return sendInOrder(reply.header('etag', etagOf(created.version)), 201, ok({ participation }));
    },
  );

  // The event seen (404) and managed (403), before the body is read.
  const managedEvent = beforeBody(async (request) => {
    const found = await seeEvent(request);
    requireManager(found, true);
    return found;
  });

  app.patch(
    '/events/:id/participations',
    {
      config: { requires: 'events:write' },
      bodyLimit: BULK_BODY_LIMIT,
      preParsing: managedEvent.preParsing,
      validatorCompiler: bodyCheckedBy(checkChangesBody),
      schema: {
        params: IdParams,
        tags,
        operationId: 'updateEventParticipations',
        summary: "Change several of an event's participations",
        description:
          'Managers with `events:write`: each item as PATCH /participations/{id} would change it (state, role, notes, attended), in the order given, each seeing the earlier ones\' effects (promotions included); 1-200 items, no id twice. All or nothing: a refused item is a 422 entry keyed `participations.<i>.id` (not found, not allowed, full) or `participations.<i>.<field>`, and nothing changes. No If-Match. `message` (0-2,000 characters) says why, as when calling an event off: cancel every live participation here, then DELETE the event.',
        body: ParticipationChangeListSchema,
        response: { 200: ParticipationListAnswer, 403: forbidden },
      },
    },
    async (request, reply) => {
      const { access, ...found } = managedEvent.found(request);
      const { participations, message } = request.body;
      const rows = await changeMany(request.tenant.db, access, found, participations, await notifierOf(request), message ?? null);
      return sendInOrder(reply, 200, ok({ participations: rows.map((row) => toApiParticipation(row, mayReadNotes({ manager: true, ownOrWard: false }))) }));
    },
  );

  app.get(
    '/events/:id/participations',
    {
      config: { requires: 'events:read' },
      schema: {
        params: IdParams,
        tags,
        operationId: 'listEventParticipations',
        summary: "An event's participations",
        description:
          'Managers see all, others their own and their wards\'. Filters `state`, `role`. Ordered by state (accepted, pending, waitlisted by place, rejected, cancelled), then name, then id; `sort=name` by name, `sort=created` in the order of registration. `include=details` (managers; others 403): each person adds is_vegetarian, can_swimm, birthday and guardians with their numbers, and the first page adds `summary` after next_cursor. As a file (managers only; `format=csv|xlsx`, or `Accept: text/csv` or the XLSX type) every page at once from `cursor` on, in the same order: CSV event-<id>-participants.csv with id, person_id, firstname, lastname, role, state, waitlist_position, attended, is_vegetarian, can_swimm, email, phonenumber, phonenumber_mobile, notes; XLSX participations-<id>.xlsx with the same columns, then guardians (names and numbers).',
        querystring: EventParticipationsQuery,
        response: {
          200: JsonOrFiles(ParticipationList, {
            csv: `The participant list, one row a participation: ${PARTICIPANT_COLUMNS.join(', ')}. File name event-<event id>-participants.csv.`,
            xlsx: `The participant list: the CSV's columns, then guardians (each guardian's name and numbers, separated by "; "). File name participations-<event id>.xlsx.`,
          }),
          403: forbidden,
        },
      },
    },
    async (request, reply) => {
      const cursors = cursorsOf(request);
      const access = await accessOf(request);
      const { event, manager } = await requireVisibleEvent(request.tenant.db, access, idOf(request));
      const { query } = request;
      // Managers list every participation; others their household's (themself and their wards).
      const household = manager ? null : (await householdOf(request.tenant.db, access)).personIds;
      const filters = {
        ...(query.state !== undefined ? { state: query.state } : {}),
        ...(query.role !== undefined ? { role: query.role } : {}),
        ...(household !== null ? { personIds: household } : {}),
      };
      if (query.include === 'details' && !manager) throw errors.unauthorized();
      const order = query.sort ?? 'state';
      // A cursor belongs to one order of the list.
      const list = `event-participations:${Number(event.id)}:${order}`;
      const format = downloadFormatOf(request, PARTICIPATION_FORMATS, query.format);
      // The files are the managers' alone: refused before anything of the request is looked at.
      if (format !== 'json' && !manager) throw errors.unauthorized();
      const after = query.cursor === undefined ? null : cursors.decode(list, query.cursor);
      if (format !== 'json') {
        // As the people CSV: every page from `cursor` on (an unknown cursor is 422).
        return sendDownload(reply, format, participantsDownload(request.tenant.db, Number(event.id), filters, order, after, format));
      }
      const limit = limitOf(query);
      const rows = await listEventParticipations(request.tenant.db, Number(event.id), filters, order, after, limit);
      const page = cursors.page(list, rows, limit, (row) => participantKey(row, order));
      const shown = (row: (typeof rows)[number]) =>
        toApiParticipation(row, mayReadNotes({ manager, ownOrWard: household?.includes(Number(row.person_id)) ?? false }));
      if (query.include !== 'details') return sendInOrder(reply, 200, ok({ participations: page.rows.map(shown), next_cursor: page.nextCursor }));
      const guardians = await guardiansOfWards(request.tenant.db, page.rows.map((row) => Number(row.person_id)));
      const detailed = page.rows.map((row) =>
        withDetails(shown(row), {
          is_vegetarian: Boolean(row.p_is_vegetarian),
          can_swimm: Boolean(row.p_can_swimm),
          birthday: row.p_birthday,
          guardians: guardians.get(Number(row.person_id)) ?? [],
        }),
      );
      // The first page carries the event's numbers: one request for a manager's page.
      const summary = query.cursor === undefined ? { summary: await summaryOf(request.tenant.db, Number(event.id)) } : {};
      return sendInOrder(reply, 200, ok({ participations: detailed, next_cursor: page.nextCursor, ...summary }));
    },
  );

  app.get(
    '/events/:id/summary',
    {
      config: { requires: 'events:read' },
      schema: {
        params: IdParams,
        tags,
        operationId: 'eventSummary',
        summary: "An event's numbers for the kitchen and the lifeguard",
        description: 'Managers. Counts by state; helpers, leaders, vegetarians, non-swimmers and attended over the accepted participations.',
        response: { 200: Envelope(Type.Object({ summary: SummarySchema })), 403: forbidden },
      },
    },
    async (request) => {
      const { event, manager } = await requireVisibleEvent(request.tenant.db, await accessOf(request), idOf(request));
      if (!manager) throw errors.unauthorized();
      return ok({ summary: await summaryOf(request.tenant.db, Number(event.id)) });
    },
  );

  const visibleParticipation = beforeBody(async (request) =>
    requireVisibleParticipation(request.tenant.db, await accessOf(request), idOf(request)),
  );

  app.patch(
    '/participations/:id',
    {
      config: { requires: 'events:read', etag: true, ifMatch: true },
      preParsing: visibleParticipation.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'updateParticipation',
        summary: 'Change a participation',
        description:
          'Managers (`events:write`): pending -> accepted | rejected | waitlisted, waitlisted -> accepted, live -> cancelled, `role`, `notes`, `attended`. The person or a guardian (`events:read`): -> cancelled and `notes`. A seat given up goes to the first of the waiting list. Honours If-Match.',
        body: ParticipationUpdateSchema,
        response: { 200: ParticipationAnswer, 403: forbidden, 412: changedAnswer },
      },
    },
    async (request, reply) => {
      const found = visibleParticipation.found(request);
      const updated = await changeParticipation(request.tenant.db, await accessOf(request), found, tokenMayWrite(request), request.body, request.headers['if-match'], await notifierOf(request));
      return sendInOrder(reply.header('etag', etagOf(updated.version)), 200, ok({ participation: toApiParticipation(updated, mayReadNotes(found)) }));
    },
  );

  app.get(
    '/people/:id/participations',
    {
      config: { requires: 'events:read' },
      schema: {
        params: IdParams,
        tags: ['people', 'participations'],
        operationId: 'listPersonParticipations',
        summary: "A person's participations",
        description: 'In the events the caller sees, by id. `notes` only for the event\'s managers, the person and their guardians.',
        querystring: PersonParticipationsQuery,
        response: { 200: ParticipationList },
      },
    },
    async (request, reply) => {
      const cursors = cursorsOf(request);
      const db = request.tenant.db;
      const access = await accessOf(request);
      // Someone the caller may not see is not found, as on GET /people/{id}.
      const personId = idOf(request);
      if (personId === null || !(await personExists(db, personId)) || !(await canSeePerson(db, access, personId))) throw errors.notFound('Person');
      const viewer = await viewerOf(db, access);
      const list = `person-participations:${personId}`;
      const { query } = request;
      const after = query.cursor === undefined ? null : Number(cursors.decode(list, query.cursor)[0]);
      const limit = limitOf(query);
      const rows = await listPersonParticipations(db, personId, viewer, after, limit);
      const page = cursors.page(list, rows, limit, (row) => [Number(row.id)]);
      const ownOrWard = viewer.personIds.includes(personId);
      return sendInOrder(reply, 200, ok({
        participations: page.rows.map((row) => toApiParticipation(row, mayReadNotes({ manager: atLeast(access.on(row.g_path), 'write'), ownOrWard }))),
        next_cursor: page.nextCursor,
      }));
    },
  );
};

export default participationRoutes;
