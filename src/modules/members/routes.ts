import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { IdParams, ok } from '../../http/before-body.js';
import { downloadFormatOf, JsonOrFiles, sendDownload } from '../../http/download-format.js';
import { limitOf } from '../../http/paging.js';
import { forbiddenAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import { requireGroup } from '../groups/rules.js';
import { toApiPerson } from '../people/schemas.js';
import type { Access } from '../permissions/rules.js';
import { MEMBER_COLUMNS, membersCards, membersDownload } from './files.js';
import { listMembers, memberSelection } from './rules.js';
import { MEMBER_FORMATS, MembersAnswer, MembersQuery } from './schemas.js';
import { toApiNamedMembership } from '../memberships/schemas.js';

const columnNames = MEMBER_COLUMNS.map((column) => column.name).join(', ');

/** The members module's route: a group's members with their memberships (docs/api/members.md). */
const memberRoutes: FastifyPluginAsyncTypebox<ResourceRouteOptions<Access>> = async (app, { cursorsOf, accessOf }) => {
  refuseUnknownQueryParameters(app);
  app.get(
    '/groups/:id/members',
    {
      config: { requires: 'people:read' },
      schema: {
        params: IdParams,
        tags: ['groups', 'people'],
        operationId: 'listGroupMembers',
        summary: "A group's members",
        description:
          'Needs `read` on the group. The people with a membership the filters select (active today unless `active_on` or `all=true`; `below=true` for the whole subtree; `role_type`; `q`), each with those memberships (`group_name` after `end_on`); only people the caller sees. ' +
          '`sort`: name (default), -name, birthday, -birthday (unknown birthdays last either way, then name), role (strongest selected membership: highest permission, then smallest role type key; then name). ' +
          'Keyset paging; the first page adds `total` after `next_cursor`. As a file (`format=csv|xlsx|vcf`, or `Accept: text/csv`, the XLSX type or `text/vcard`): every page at once, `limit` and `cursor` ignored.',
        querystring: MembersQuery,
        response: {
          200: JsonOrFiles(MembersAnswer, {
            csv: `One row a person: ${columnNames} (the selected role type keys, strongest first, joined by "; "). File name members-<group id>-<tenant's date>.csv.`,
            xlsx: `The CSV's columns, with numbers, booleans and dates as the spreadsheet's own types; a bold, frozen header row. File name members-<group id>-<tenant's date>.xlsx.`,
            vcf: "vCard 4.0 (RFC 6350): a card a person, with a RELATED;TYPE=parent line naming each guardian's UID, then a short card (FN, N, EMAIL, TEL, UID) for each guardian who is not listed. File name members-<group id>-<tenant's date>.vcf.",
          }),
          403: forbiddenAnswer('read on the group'),
        },
      },
    },
    async (request, reply) => {
      const { db } = request.tenant;
      const cursors = cursorsOf(request);
      const group = await requireGroup(db, idOf(request));
      const access = await accessOf(request);
      const { query } = request;
      const format = downloadFormatOf(request, MEMBER_FORMATS, query.format);
      const selection = memberSelection(access, group, query, { streamed: format !== 'json' });
      if (format === 'vcf') return sendDownload(reply, format, membersCards(db, request.tenant.slug, access, selection, access.day));
      if (format !== 'json') return sendDownload(reply, format, membersDownload(db, selection, access.day));
      const page = await listMembers(db, selection, cursors, query.cursor, limitOf(query));
      return ok({
        members: page.members.map(({ person, memberships }) => ({ person: toApiPerson(person), memberships: memberships.map(toApiNamedMembership) })),
        next_cursor: page.nextCursor,
        ...(page.total === undefined ? {} : { total: page.total }),
      });
    },
  );
};

export default memberRoutes;
