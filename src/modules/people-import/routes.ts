import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Access } from '../permissions/rules.js';
import { errors } from '../../errors.js';
import { beforeBody, ok } from '../../http/before-body.js';
import { compileRequestValidator } from '../../http/json-body.js';
import { Envelope, ErrorSchema, ValidationErrorSchema } from '../../http/schemas.js';
import { XLSX_MEDIA_TYPE } from '../../lib/xlsx.js';
import { charsetOf } from './decode.js';
import { IMPORTED_FIELDS, importFileOf, parseImportFile } from './parse.js';
import { importPeople, requireImportTarget, tablesToRefreshAfter } from './rules.js';
import type { Storage } from '../../db/storage.js';
import { ImportAnswerSchema, ImportQuery, validateImportQuery } from './schemas.js';
import { readXlsx } from './xlsx.js';

export interface PeopleImportOptions {
  accessOf: (request: FastifyRequest) => Promise<Access>;
  /** Storage.refreshStatistics, after a large import. */
  refreshStatistics: Storage['refreshStatistics'];
  /** IMPORT_BODY_LIMIT and IMPORT_MAX_ROWS (docs/operations/configuration.md). */
  bodyLimit: number;
  maxRows: number;
}

const CSV_BODY = Type.String({
  description: `UTF-8 (BOM allowed; a body that is not UTF-8 is read as Windows-1252), UTF-16 with a BOM, or the charset of the Content-Type (utf-8, windows-1252, iso-8859-1); comma, semicolon or tab separated; a header row naming person fields (${IMPORTED_FIELDS.join(', ')}, or their English, German and French names; id, has_login, created_at, updated_at are ignored), then one row a person.`,
});
const XLSX_BODY = Type.String({
  format: 'binary',
  description: 'An XLSX workbook: its first worksheet, the first row the header (as for CSV), then one row a person.',
});

/**
 * POST /people/import (docs/api/import-and-export.md). A plugin of its own: this route alone takes
 * text/csv and XLSX (and nothing else), with its own body limit.
 */
const peopleImportRoutes: FastifyPluginAsyncTypebox<PeopleImportOptions> = async (app, { accessOf, refreshStatistics, bodyLimit, maxRows }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['text/csv', XLSX_MEDIA_TYPE], { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', (_request, _payload, done) => done(errors.unsupportedCsvMediaType()));

  // The query and the caller's right on the group are checked before the file is read: a caller
  // who may not import there hears 403 at once, whatever the file.
  const target = beforeBody(async (request) => {
    const query = validateImportQuery(request.query);
    if (!query.ok) throw errors.validation(query.fieldErrors);
    const access = await accessOf(request);
    const target = await requireImportTarget(request.tenant.db, access, query.value.group_id, query.value.role_type);
    return { access, target, dryRun: query.value.dry_run === true, ignoreUnknown: query.value.ignore_unknown === true, details: query.value.details === true };
  });

  app.post(
    '/people/import',
    {
      config: { requires: 'people:write' },
      bodyLimit,
      preParsing: target.preParsing,
      // The body is CSV or XLSX, read by parseImportFile or readXlsx; only the query string has a schema to check.
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : compileRequestValidator(route)),
      schema: {
        tags: ['people'],
        operationId: 'importPeople',
        summary: 'Import people from CSV or XLSX',
        description:
          'All or nothing: every row joins `group_id` with `role_type`. Rows match people by e-mail (any case), else by firstname, lastname and birthday among the active members of the group; matched rows update the fields they give (an empty cell: null, or unchanged for a required field), new rows create people without login. Headers may be the field names or their English, German and French names; dates may be `2014-03-04`, `04.03.2014`, `4.3.2014` or `04/03/2014` (day first); booleans `true`/`false`, `yes`/`no`, `ja`/`nein`, `oui`/`non`, `wahr`/`falsch`, `vrai`/`faux`, `1`/`0`, `x`/empty. Any problem: 422 with `errors: {"row N": [...]}` (the header is row 1) or `{"file": [...]}`, nothing written. `dry_run=true` checks and counts only; `ignore_unknown=true` ignores columns that match no field and lists them in `ignored_columns`; `details=true` adds `columns` and `rows`.',
        querystring: ImportQuery,
        body: { content: { 'text/csv': { schema: CSV_BODY }, [XLSX_MEDIA_TYPE]: { schema: XLSX_BODY } } },
        response: {
          200: Envelope(ImportAnswerSchema),
          403: { ...ErrorSchema, description: 'Invalid ability provided., or This action is unauthorized. (no `write` on the group, or a role above the caller\'s own)' },
          413: { ...ErrorSchema, description: 'Body larger than IMPORT_BODY_LIMIT' },
          415: { ...ErrorSchema, description: 'The body is neither text/csv nor XLSX' },
          422: { ...ValidationErrorSchema, description: 'The query, the file (`file`: unknown column, two columns for one field, password column, too many rows, month-first dates, not CSV, not a readable XLSX workbook) or its rows (`row N`)' },
        },
      },
    },
    async (request) => {
      const found = target.found(request);
      const body = request.body as Buffer | undefined;
      const contentType = request.headers['content-type'] ?? '';
      const file = contentType.toLowerCase().startsWith(XLSX_MEDIA_TYPE)
        ? importFileOf(await readXlsx(body, maxRows), { ignoreUnknown: found.ignoreUnknown, unneutralise: false })
        : parseImportFile(body, maxRows, { charset: charsetOf(contentType), ignoreUnknown: found.ignoreUnknown });
      const outcome = await importPeople(request.tenant.db, found.access, found.target, file, { dryRun: found.dryRun, details: found.details });
      // The import is committed: its answer stands even if the statistics cannot be refreshed now
      // (autovacuum does it later; only speed waits for it).
      await refreshStatistics(request.tenant.slug, tablesToRefreshAfter(file, { dryRun: found.dryRun })).catch((err: unknown) =>
        request.log.warn({ err }, 'planner statistics not refreshed after an import'),
      );
      return ok({
        created: outcome.created,
        updated: outcome.updated,
        unchanged: outcome.unchanged,
        ...(found.details ? { columns: file.columns, rows: outcome.rows } : {}),
        ...(found.ignoreUnknown ? { ignored_columns: file.ignoredColumns } : {}),
      });
    },
  );
};

export default peopleImportRoutes;
