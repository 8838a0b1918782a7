import Type, { type Static } from 'typebox';
import { compileObjectValidator, StoredText } from '../../lib/validation.js';
import { PersonUpdateSchema } from '../people/schemas.js';

/**
 * POST /people/import's query: the group and role type every row joins, the dry run, and what
 * the answer tells. Any other parameter is 422: a typo such as `dryrun=true` must never import.
 */
export const ImportQuery = Type.Object(
  {
    group_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    role_type: StoredText({ minLength: 1, maxLength: 64 }),
    dry_run: Type.Optional(Type.Boolean()),
    ignore_unknown: Type.Optional(Type.Boolean({ description: 'true: columns that match no field are ignored (and listed in `ignored_columns`) instead of refusing the file' })),
    details: Type.Optional(Type.Boolean({ description: 'true: the answer adds `columns` and `rows` (what each row does)' })),
  },
  { additionalProperties: false },
);
export type ImportQueryInput = Static<typeof ImportQuery>;
export const validateImportQuery = compileObjectValidator<ImportQueryInput>(ImportQuery, { convertStrings: true });

/** What an import did (or, with dry_run, would do). */
export const ImportCountsSchema = Type.Object({
  created: Type.Integer({ minimum: 0 }),
  updated: Type.Integer({ minimum: 0 }),
  unchanged: Type.Integer({ minimum: 0 }),
});
export type ImportCounts = Static<typeof ImportCountsSchema>;

/** What one row does, with `details=true`. */
export const ImportRowDetailSchema = Type.Object({
  row: Type.Integer({ minimum: 2, description: 'The row as a spreadsheet shows it (the header is row 1)' }),
  action: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('unchanged')]),
  person_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a new person in a dry run' }),
  changes: Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2 }), {
    description: '{field: [old, new]}; a new person: the fields the row gives, old null',
  }),
});
export type ImportRowDetail = {
  row: number;
  action: 'created' | 'updated' | 'unchanged';
  person_id: number | null;
  changes: Record<string, [unknown, unknown]>;
};

/** The import's answer: the counts, then with `details=true` the columns and rows, with `ignore_unknown=true` the ignored columns. */
export const ImportAnswerSchema = Type.Object({
  ...ImportCountsSchema.properties,
  columns: Type.Optional(
    Type.Array(Type.Object({ header: Type.String(), field: Type.Union([Type.String(), Type.Null()], { description: 'null: an ignored column' }) })),
  ),
  rows: Type.Optional(Type.Array(ImportRowDetailSchema)),
  ignored_columns: Type.Optional(Type.Array(Type.String(), { description: 'With ignore_unknown=true: the headers that matched no field' })),
});

// A row's fields are checked with the rules and words of PATCH /people (username and password
// aside: the import never sets them).
const { username: _username, password: _password, ...rowFields } = PersonUpdateSchema.properties;
export const ImportRowSchema = Type.Object(rowFields);
export type ImportRowInput = Static<typeof ImportRowSchema>;
export const validateImportRow = compileObjectValidator<ImportRowInput>(ImportRowSchema);
