import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Access } from '../permissions/rules.js';
import { errors } from '../../errors.js';
import { beforeBody, ok } from '../../http/before-body.js';
import { compileRequestValidator } from '../../http/json-body.js';
import { Envelope, ErrorSchema, ValidationErrorSchema } from '../../http/schemas.js';
import { IMPORTED_FIELDS, parseImportFile } from './parse.js';
import { importPeople, requireImportTarget } from './rules.js';
import { ImportCountsSchema, ImportQuery, validateImportQuery } from './schemas.js';

export interface PeopleImportOptions {
  accessOf: (request: FastifyRequest) => Promise<Access>;
  /** IMPORT_BODY_LIMIT and IMPORT_MAX_ROWS (docs/operations/configuration.md). */
  bodyLimit: number;
  maxRows: number;
}

const CSV_BODY = Type.String({
  description: `UTF-8 (BOM allowed), comma or semicolon separated; a header row naming person fields (${IMPORTED_FIELDS.join(', ')}; id, has_login, created_at, updated_at are ignored), then one row a person.`,
});

/**
 * POST /people/import (docs/api/import-and-export.md). A plugin of its own: this route alone takes
 * text/csv (and nothing else), with its own body limit.
 */
const peopleImportRoutes: FastifyPluginAsyncTypebox<PeopleImportOptions> = async (app, { accessOf, bodyLimit, maxRows }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('text/csv', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', (_request, _payload, done) => done(errors.unsupportedCsvMediaType()));

  // The query and the caller's right on the group are checked before the file is read: a caller
  // who may not import there hears 403 at once, whatever the file.
  const target = beforeBody(async (request) => {
    const query = validateImportQuery(request.query);
    if (!query.ok) throw errors.validation(query.fieldErrors);
    const access = await accessOf(request);
    return { access, dryRun: query.value.dry_run === true, target: await requireImportTarget(request.tenant.db, access, query.value.group_id, query.value.role_type) };
  });

  app.post(
    '/people/import',
    {
      config: { requires: 'people:write' },
      bodyLimit,
      preParsing: target.preParsing,
      // The body is CSV, read by parseImportFile; only the query string has a schema to check.
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : compileRequestValidator(route)),
      schema: {
        tags: ['people'],
        operationId: 'importPeople',
        summary: 'Import people from CSV',
        description:
          'All or nothing: every row joins `group_id` with `role_type`. Rows match people by e-mail (any case), else by firstname, lastname and birthday among the active members of the group; matched rows update the fields they give (an empty cell: null, or unchanged for a required field), new rows create people without login. Any problem: 422 with `errors: {"row N": [...]}` (the header is row 1) or `{"file": [...]}`, nothing written. `dry_run=true` checks and counts only.',
        querystring: ImportQuery,
        body: { content: { 'text/csv': { schema: CSV_BODY } } },
        response: {
          200: Envelope(ImportCountsSchema),
          403: { ...ErrorSchema, description: 'Invalid ability provided., or This action is unauthorized. (no `write` on the group, or a role above the caller\'s own)' },
          413: { ...ErrorSchema, description: 'Body larger than IMPORT_BODY_LIMIT' },
          415: { ...ErrorSchema, description: 'The body is not text/csv' },
          422: { ...ValidationErrorSchema, description: 'The query, the file (`file`: unknown column, password column, too many rows, not CSV) or its rows (`row N`)' },
        },
      },
    },
    async (request) => {
      const found = target.found(request);
      const file = parseImportFile(request.body as Buffer | undefined, maxRows);
      return ok(await importPeople(request.tenant.db, found.access, found.target, file, { dryRun: found.dryRun }));
    },
  );
};

export default peopleImportRoutes;
