import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { beforeBody, IdParams, ok, okJsonText } from '../../http/before-body.js';
import { etagOf } from '../../http/etag.js';
import { limitOf } from '../../http/paging.js';
import { Envelope, NoContent, ValidationErrorSchema } from '../../http/schemas.js';
import { MembershipSchema, PersonMembershipsQuery, toApiMembership } from '../memberships/schemas.js';
import { callerOf } from '../../http/auth.js';
import { requireCaller } from '../../http/caller.js';
import { errors, fieldMessages } from '../../errors.js';
import { PERSON_INCLUDES, PersonIncludesSchema, personIncludes, type PersonInclude } from './includes.js';
import { downloadFormatOf, JsonOrFile, JsonOrFiles, sendDownload, VCARD_MEDIA_TYPE } from '../../http/download-format.js';
import { attachment } from '../../lib/csv.js';
import { peopleCards, personCard } from './vcards.js';
import { personJson, type PersonJsonMemory } from './json-memory.js';
import { listWards, sortNamesOf, type PeopleColumns } from './queries.js';
import { PERSON_COLUMNS, peopleDownload, peopleSelection } from './csv.js';
import {
  addGuardian,
  changePerson,
  createPerson,
  erasePerson,
  guardiansOf,
  listPeople,
  removeGuardian,
  requireChangeable,
  requireGuardianManager,
  requireVisiblePerson,
} from './rules.js';
import { bodyCheckedBy } from '../../http/json-body.js';
import { checkGuardianLink, checkNewPerson, GuardianLinkSchema, NewPersonSchema, PEOPLE_FORMATS, PeopleQuery, PersonSchema, PersonUpdateSchema, toApiPerson } from './schemas.js';
import { RECORD_FIELDS, refuseFields } from '../users/schemas.js';
import type { GroupRow } from '../../db/types.js';
import { forbiddenAnswer, changedAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import type { Access } from '../permissions/rules.js';
import { listPersonMemberships } from '../memberships/rules.js';
import type { TenantLetterheads } from '../notifications/rules.js';
import type { MailHub } from '../mail/settings.js';

const tags = ['people'];
const PersonAnswer = Envelope(Type.Object({ person: PersonSchema }));
const NextCursor = Type.Union([Type.String(), Type.Null()]);
const forbidden = forbiddenAnswer('role permission');

const PersonQuery = Type.Object(
  { include: Type.Optional(Type.String({ maxLength: 200, description: `Comma-separated: ${PERSON_INCLUDES.join(', ')}` })) },
  { additionalProperties: false },
);

/** A person answers as JSON, or as a vCard by Accept (no `format` parameter: one resource, not a list). */
const PERSON_FORMATS = ['json', 'vcf'] as const;

/** The lists `include` names; an unknown one is 422 on `include`. */
function includesOf(include: string | undefined): Set<PersonInclude> {
  if (include === undefined) return new Set();
  const names = include.split(',');
  const known = (name: string): name is PersonInclude => (PERSON_INCLUDES as readonly string[]).includes(name);
  if (!names.every(known)) throw errors.invalidField('include', fieldMessages.selectedInvalid('include'));
  return new Set(names.filter(known));
}

export interface PeopleRouteOptions extends ResourceRouteOptions<Access> {
  /** The group named by `group_id`, remembered for a second (groups/memory.ts). */
  groupOf: (request: FastifyRequest, id: number) => Promise<GroupRow | undefined>;
  /** People's JSON kept by version, for the pages of GET /people. */
  peopleJson: PersonJsonMemory;
  /** A replaced e-mail address gets a notice. */
  mail: MailHub;
  letterheads: TenantLetterheads;
}

/** The people module's routes: people, guardians and wards, CSV in and out. */
const peopleRoutes: FastifyPluginAsyncTypebox<PeopleRouteOptions> = async (app, { cursorsOf, accessOf, groupOf, peopleJson, mail, letterheads }) => {
  refuseUnknownQueryParameters(app);
  app.get(
    '/people',
    {
      config: { requires: 'people:read' },
      schema: {
        tags,
        operationId: 'listPeople',
        summary: 'List people',
        description:
          'The people the caller sees (never refused); with `format=csv|xlsx|vcf` (or that `Accept`) the whole list as a file (attachment). Filters: `group_id` (+ `below=true`), `role_type`, `active_on` (for those two; default today), `ids` (comma-separated, up to 200), `q`, `updated_since`, `is_vegetarian`, `can_swimm`; `sort` name (default), -updated_at, id.',
        querystring: PeopleQuery,
        response: {
          200: JsonOrFiles(Envelope(Type.Object({ people: Type.Array(PersonSchema), next_cursor: NextCursor })), {
            csv: `Every page at once (from \`cursor\` on; \`limit\` does not apply), one row a person: ${PERSON_COLUMNS.join(', ')}. File name people-<tenant's date>.csv.`,
            xlsx: "The same rows as the CSV in one worksheet: a bold frozen header, numbers, booleans and dates as the spreadsheet's own types. File name people-<tenant's date>.xlsx.",
            vcf: "vCard 4.0 (RFC 6350), every page at once from the first (`limit` and `cursor` do not apply): a card a person, with a RELATED;TYPE=parent line naming each guardian's UID, then a short card (FN, N, EMAIL, TEL, UID) for each guardian who is not listed. File name people-<tenant's date>.vcf.",
          }),
        },
      },
    },
    async (request, reply) => {
      const cursors = cursorsOf(request);
      const access = await accessOf(request);
      const format = downloadFormatOf(request, PEOPLE_FORMATS, request.query.format);
      if (format === 'vcf') {
        const { db, slug } = request.tenant;
        return sendDownload(reply, format, peopleCards(db, slug, access, await peopleSelection(db, access, request.query), access.day));
      }
      if (format !== 'json') {
        const { query } = request;
        const selection = await peopleSelection(request.tenant.db, access, query);
        const after = query.cursor === undefined ? null : cursors.decode(`people:${selection.sort}`, query.cursor);
        return sendDownload(reply, format, peopleDownload(request.tenant.db, access, selection, access.day, after));
      }
      const { db, slug } = request.tenant;
      const pageOf = <C extends PeopleColumns>(columns: C) => listPeople(db, access, request.query, limitOf(request.query), cursors, (id) => groupOf(request, id), columns);
      const page = await pageOf('refs');
      const kept = await peopleJson.jsonOf(slug, db, page.rows);
      let people: string[];
      let nextCursor: string | null;
      if (kept !== undefined) {
        people = kept.map((person) => person.json);
        nextCursor = page.cursorAfterLast?.(kept[kept.length - 1]!.names) ?? null;
      } else {
        // Someone on the page changed between its two reads: the page again, whole, in one statement.
        const whole = await pageOf('rows');
        people = whole.rows.map((row) => personJson(toApiPerson(row)));
        nextCursor = whole.cursorAfterLast?.(sortNamesOf(whole.rows[whole.rows.length - 1]!)) ?? null;
      }
      // Written here as the response schema would write it (a test compares the two byte for byte).
      reply.type('application/json; charset=utf-8');
      return okJsonText(`{"people":[${people.join(',')}],"next_cursor":${JSON.stringify(nextCursor)}}`);
    },
  );

  app.get(
    '/people/:id',
    {
      config: { requires: 'people:read', etag: true },
      schema: {
        params: IdParams,
        tags,
        operationId: 'getPerson',
        summary: 'A person',
        description:
          'For the person, their guardians, those with `read` where they are, and those who see one of their wards. `include` (comma-separated: memberships, guardians, wards, participations, can) adds those lists beside `person`, in that order; `participations` needs `events:read` too. ETag: the version of the person. With `Accept: text/vcard` (or `text/x-vcard`) the person\'s vCard instead (`include` does not apply).',
        querystring: PersonQuery,
        response: {
          200: JsonOrFile(Envelope(Type.Object({ person: PersonSchema, ...PersonIncludesSchema.properties })), {
            mediaType: 'text/vcard',
            description:
              'vCard 4.0 (RFC 6350): FN, N, EMAIL, TEL (home, cell), ADR, BDAY, UID and a RELATED;TYPE=parent line naming each guardian\'s UID; the fields the JSON shows. `Content-Disposition: attachment; filename="person-<id>.vcf"`.',
          }),
        },
      },
    },
    async (request, reply) => {
      const wanted = includesOf(request.query.include);
      const access = await accessOf(request);
      // Asked before the person is looked up, as the route's own ability would be.
      if (wanted.has('participations')) requireCaller(request.auth, 'events:read');
      const person = await requireVisiblePerson(request.tenant.db, access, idOf(request));
      reply.header('etag', etagOf(person.version));
      if (downloadFormatOf(request, PERSON_FORMATS, undefined) === 'vcf') {
        const card = await personCard(request.tenant.db, request.tenant.slug, access, person);
        // A file, not the JSON the type provider expects of a schema'd answer.
        return (reply as FastifyReply)
          .type(VCARD_MEDIA_TYPE)
          .header('content-disposition', attachment(`person-${Number(person.id)}.vcf`))
          .send(card);
      }
      if (wanted.size === 0) return ok({ person: toApiPerson(person) });
      return ok({ person: toApiPerson(person), ...(await personIncludes(request.tenant.db, access, person, wanted)) });
    },
  );

  app.post(
    '/people',
    {
      config: { requires: 'people:write', etag: true },
      validatorCompiler: bodyCheckedBy(checkNewPerson),
      schema: {
        tags,
        operationId: 'createPerson',
        summary: 'Add a person',
        description:
          'Profile fields and either a first `membership` (needs `write` on the group and a role not above the caller\'s own there) or `guardian_of` (a parent without a membership, linked as that person\'s guardian; needs the right to add a guardian to them). Optional `username` + `password` (+ `email`) give a login.',
        body: NewPersonSchema,
        response: { 201: PersonAnswer, 403: forbidden },
      },
    },
    async (request, reply) => {
      refuseFields(request.body, RECORD_FIELDS);
      const person = await createPerson(request.tenant.db, await accessOf(request), request.body);
      return reply.code(201).header('etag', etagOf(person.version)).send(ok({ person: toApiPerson(person) }));
    },
  );

  const changeable = beforeBody(async (request) => {
    const access = await accessOf(request);
    return { access, ...(await requireChangeable(request.tenant.db, access, idOf(request))) };
  });

  app.patch(
    '/people/:id',
    {
      config: { requires: 'people:write', etag: true, ifMatch: true },
      preParsing: changeable.preParsing,
      schema: {
        params: IdParams,
        tags,
        operationId: 'updatePerson',
        summary: 'Change a person',
        description:
          'As PATCH /user, plus `username` and `birthday`; `password` only for admins on the root (it revokes the person\'s tokens). Guardians change the profile only. Honours If-Match.',
        body: PersonUpdateSchema,
        response: { 200: PersonAnswer, 403: forbidden, 412: changedAnswer },
      },
    },
    async (request, reply) => {
      const { access, person, right } = changeable.found(request);
      refuseFields(request.body, RECORD_FIELDS);
      const { db, slug } = request.tenant;
      const { user } = callerOf(request);
      const notice = { hub: mail, letterheads, slug, actor: { id: user.id, firstname: user.firstname, lastname: user.lastname } };
      const updated = await changePerson(db, access, { person, right }, request.body, request.headers['if-match'], notice);
      if (request.body.email !== undefined) mail.wake(slug);
      reply.header('etag', etagOf(updated.version));
      return ok({ person: toApiPerson(updated) });
    },
  );

  app.delete(
    '/people/:id',
    {
      config: { requires: 'people:write', ifMatch: true },
      schema: {
        params: IdParams,
        tags,
        operationId: 'erasePerson',
        summary: 'Erase a person',
        description: 'GDPR erasure by an admin on the root: the person, their tokens, memberships and guardianships. Never the last administrator. Honours If-Match.',
        response: { 204: NoContent, 403: forbidden, 412: changedAnswer, 422: { ...ValidationErrorSchema, description: 'The last administrator cannot be removed.' } },
      },
    },
    async (request, reply) => {
      const access = await accessOf(request);
      const person = await requireVisiblePerson(request.tenant.db, access, idOf(request));
      const notifier = { hub: mail, letterhead: await letterheads.of(request.tenant.slug) };
      await erasePerson(request.tenant.db, access, person, request.headers['if-match'], notifier);
      return (reply as FastifyReply).code(204).send();
    },
  );

  app.get(
    '/people/:id/memberships',
    {
      config: { requires: 'people:read' },
      schema: {
        params: IdParams,
        tags: ['people', 'memberships'],
        operationId: 'listPersonMemberships',
        summary: "A person's memberships",
        description: 'All of them (active, future, ended), by id; `active_on`: only those active that day.',
        querystring: PersonMembershipsQuery,
        response: { 200: Envelope(Type.Object({ memberships: Type.Array(MembershipSchema), next_cursor: NextCursor })) },
      },
    },
    async (request) => {
      const cursors = cursorsOf(request);
      const person = await requireVisiblePerson(request.tenant.db, await accessOf(request), idOf(request));
      const { query } = request;
      const list = `person-memberships:${Number(person.id)}`;
      const after = query.cursor === undefined ? null : Number(cursors.decode(list, query.cursor)[0]);
      const limit = limitOf(query);
      const rows = await listPersonMemberships(request.tenant.db, Number(person.id), query.active_on ?? null, after, limit);
      const page = cursors.page(list, rows, limit, (row) => [Number(row.id)]);
      return ok({ memberships: page.rows.map(toApiMembership), next_cursor: page.nextCursor });
    },
  );

  app.get(
    '/people/:id/guardians',
    {
      config: { requires: 'people:read' },
      schema: {
        params: IdParams,
        tags,
        operationId: 'listGuardians',
        summary: "A person's guardians",
        description: 'For anyone who sees the person (not paged).',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(Type.Object({ guardians: Type.Array(PersonSchema) })) },
      },
    },
    async (request) => {
      const access = await accessOf(request);
      const person = await requireVisiblePerson(request.tenant.db, access, idOf(request));
      return ok({ guardians: (await guardiansOf(request.tenant.db, access, Number(person.id))).map(toApiPerson) });
    },
  );

  const guardianManager = beforeBody(async (request) => {
    const access = await accessOf(request);
    return { access, ward: await requireGuardianManager(request.tenant.db, access, idOf(request)) };
  });

  app.post(
    '/people/:id/guardians',
    {
      config: { requires: 'people:write', etag: true },
      preParsing: guardianManager.preParsing,
      validatorCompiler: bodyCheckedBy(checkGuardianLink),
      schema: {
        params: IdParams,
        tags,
        operationId: 'addGuardian',
        summary: 'Add a guardian',
        description:
          'Needs `write` where the person is (guardians cannot add guardians). `guardian_id`: another person the caller sees; or `email`: the person with that address, when the caller sees them or they have no membership that has not ended.',
        body: GuardianLinkSchema,
        response: { 201: Envelope(Type.Object({ guardian: PersonSchema })), 403: forbidden },
      },
    },
    async (request, reply) => {
      const { access, ward } = guardianManager.found(request);
      const guardian = await addGuardian(request.tenant.db, access, ward, request.body as Parameters<typeof addGuardian>[3]);
      return reply.code(201).header('etag', etagOf(guardian.version)).send(ok({ guardian: toApiPerson(guardian) }));
    },
  );

  app.delete(
    '/people/:id/guardians/:guardian_id',
    {
      config: { requires: 'people:write' },
      preParsing: guardianManager.preParsing,
      schema: {
        params: Type.Object({ id: Type.String({ description: 'The person' }), guardian_id: Type.String({ description: 'The guardian' }) }),
        tags,
        operationId: 'removeGuardian',
        summary: 'Remove a guardian',
        description: 'Needs `write` where the person is. 404 Person not found. for a guardian the caller cannot see (as for one that does not exist), 404 Guardian not found. when there is no such link.',
        response: { 204: NoContent, 403: forbidden },
      },
    },
    async (request, reply) => {
      const { access, ward } = guardianManager.found(request);
      await removeGuardian(request.tenant.db, access, ward, idOf(request, 'guardian_id'));
      return (reply as FastifyReply).code(204).send();
    },
  );

  app.get(
    '/user/wards',
    {
      config: { requires: 'people:read' },
      schema: {
        tags,
        operationId: 'listWards',
        summary: 'My wards',
        description: 'The people the caller is guardian of (not paged); no role permission needed.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(Type.Object({ wards: Type.Array(PersonSchema) })) },
      },
    },
    async (request) => ok({ wards: (await listWards(request.tenant.db, callerOf(request).user.id)).map(toApiPerson) }),
  );
};

export default peopleRoutes;
