import Type, { type Static } from 'typebox';
import { compileObjectValidator, StoredText } from '../../lib/validation.js';
import { PersonUpdateSchema } from '../people/schemas.js';

/** POST /people/import's query: the group and role type every row joins, and the dry run. */
export const ImportQuery = Type.Object(
  {
    group_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    role_type: StoredText({ minLength: 1, maxLength: 64 }),
    dry_run: Type.Optional(Type.Boolean()),
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

// A row's fields are checked with the rules and words of PATCH /people (username and password
// aside: the import never sets them).
const { username: _username, password: _password, ...rowFields } = PersonUpdateSchema.properties;
export const ImportRowSchema = Type.Object(rowFields);
export type ImportRowInput = Static<typeof ImportRowSchema>;
export const validateImportRow = compileObjectValidator<ImportRowInput>(ImportRowSchema);
