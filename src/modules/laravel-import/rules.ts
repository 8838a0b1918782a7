import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.js';
import type { TenantDatabase } from '../../db/types.js';
import { normaliseDbTimestamp, toDbTimestamp } from '../../lib/time.js';
import { lowerAscii, MAX_NAME_BYTES, nameFitsIndexes } from '../../lib/validation.js';
import { noteCreated, transact } from '../../recording/recorder.js';
import {
  findImportedToken,
  findImportedUser,
  insertImportedToken,
  insertImportedUser,
  readSourceBatch,
  sourceTableColumns,
  type SourceDb,
} from './queries.js';

/**
 * Copies `users` and `personal_access_tokens` from the original (Laravel + Sanctum) service's
 * database into a tenant, keeping ids, password hashes, timestamps and token hashes, so every
 * imported user logs in with the old password and every token handed out before still works.
 * Rows whose id is already there are skipped when they are the same user or token (so a second
 * run changes nothing) and stop the import when they are not.
 */

export class ImportError extends Error {
  override name = 'ImportError';
}

type Row = Record<string, unknown>;
type TargetDb = Kysely<TenantDatabase>;

const USER_COLUMNS = {
  required: ['id', 'username', 'email', 'firstname', 'lastname', 'password', 'created_at', 'updated_at'],
  optional: [
    'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile', 'street', 'housenumber', 'zip', 'city',
    'is_vegetarian', 'can_swimm', 'is_active',
  ],
};
const TOKEN_COLUMNS = {
  required: ['id', 'tokenable_type', 'tokenable_id', 'name', 'token', 'abilities', 'created_at', 'updated_at'],
  // Older Sanctum versions have no expires_at.
  optional: ['last_used_at', 'expires_at'],
};

export interface TableReport {
  table: 'users' | 'personal_access_tokens';
  read: number;
  imported: number;
  alreadyPresent: number;
}

export interface ImportOptions {
  batchSize?: number;
  onProgress?: (message: string) => void;
  now?: Date;
}

/** The columns of a source table that the import will read; refuses when a required one is missing. */
async function columnsOf(source: SourceDb, table: string, spec: { required: string[]; optional: string[] }) {
  const present = await sourceTableColumns(source, table);
  if (!present) throw new ImportError(`the source database has no table "${table}"`);
  const missing = spec.required.filter((column) => !present.has(column));
  if (missing.length > 0) {
    throw new ImportError(`source table "${table}" lacks required column(s): ${missing.join(', ')}`);
  }
  return [...spec.required, ...spec.optional.filter((column) => present.has(column))];
}

async function* batches(source: SourceDb, table: string, columns: string[], size: number): AsyncGenerator<Row[]> {
  let lastId = 0;
  for (;;) {
    const rows: Row[] = await readSourceBatch(source, table, columns, lastId, size);
    if (rows.length === 0) return;
    yield rows;
    lastId = Number(rows[rows.length - 1]!.id);
  }
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const integer = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const flag = (value: unknown, fallback: boolean): 0 | 1 => {
  if (value === null || value === undefined) return fallback ? 1 : 0;
  return value === true || value === 't' || Number(value) === 1 ? 1 : 0;
};

function timestamp(value: unknown, fallback: string): string;
function timestamp(value: unknown, fallback: null): string | null;
function timestamp(value: unknown, fallback: string | null): string | null {
  if (value === null || value === undefined || value === '') return fallback;
  return normaliseDbTimestamp(value instanceof Date ? value : String(value));
}

async function importUsers(source: SourceDb, target: TargetDb, options: Required<ImportOptions>): Promise<TableReport> {
  const columns = await columnsOf(source, 'users', USER_COLUMNS);
  const report: TableReport = { table: 'users', read: 0, imported: 0, alreadyPresent: 0 };
  // Laravel's timestamps may be null; ours are not: such rows get the moment of the import.
  const importedAt = toDbTimestamp(options.now);
  for await (const rows of batches(source, 'users', columns, options.batchSize)) {
    await transact(target, null, async (trx) => {
      for (const row of rows) {
        const id = Number(row.id);
        const username = String(row.username);
        const existing = await findImportedUser(trx, id);
        if (existing) {
          if (lowerAscii(existing.username ?? '') !== lowerAscii(username)) {
            throw new ImportError(
              `user id ${id} is "${username}" in the source but "${existing.username}" in the tenant; import into a tenant without other users`,
            );
          }
          report.alreadyPresent++;
          continue;
        }
        const firstname = String(row.firstname ?? '');
        const lastname = String(row.lastname ?? '');
        // The API refuses such names (422); here they would stop the import on PostgreSQL with
        // an index error that names no row, so the row is named instead.
        for (const [field, value] of [['firstname', firstname], ['lastname', lastname]] as const) {
          if (!nameFitsIndexes(value)) {
            throw new ImportError(`user id ${id} ("${username}"): the ${field} is too long (the name and its sort key take over ${MAX_NAME_BYTES.toLocaleString('en')} bytes of UTF-8)`);
          }
        }
        try {
          await insertImportedUser(trx, {
              id,
              username,
              email: String(row.email),
              firstname,
              lastname,
              gender_id: integer(row.gender_id),
              type_id: integer(row.type_id),
              phonenumber: text(row.phonenumber),
              phonenumber_mobile: text(row.phonenumber_mobile),
              street: text(row.street),
              housenumber: text(row.housenumber),
              zip: text(row.zip),
              city: text(row.city),
              is_vegetarian: flag(row.is_vegetarian, false),
              can_swimm: flag(row.can_swimm, false),
              password: String(row.password),
              is_active: flag(row.is_active, true),
              created_at: timestamp(row.created_at, importedAt),
              updated_at: timestamp(row.updated_at, importedAt),
          });
          noteCreated(trx, 'person', id, { personId: id });
        } catch (err) {
          if (isUniqueViolation(err)) {
            throw new ImportError(`user id ${id} ("${username}"): username or e-mail is already taken in the tenant`);
          }
          throw err;
        }
        report.imported++;
      }
    });
    report.read += rows.length;
    options.onProgress(`users: ${report.read} read`);
  }
  return report;
}

async function importTokens(source: SourceDb, target: TargetDb, options: Required<ImportOptions>): Promise<TableReport> {
  const columns = await columnsOf(source, 'personal_access_tokens', TOKEN_COLUMNS);
  const report: TableReport = { table: 'personal_access_tokens', read: 0, imported: 0, alreadyPresent: 0 };
  const importedAt = toDbTimestamp(options.now);
  for await (const rows of batches(source, 'personal_access_tokens', columns, options.batchSize)) {
    await target.transaction().execute(async (trx) => {
      for (const row of rows) {
        const id = Number(row.id);
        const hash = String(row.token);
        const existing = await findImportedToken(trx, id);
        if (existing) {
          if (existing.token !== hash) {
            throw new ImportError(`token id ${id} differs between the source and the tenant; import into a tenant without other tokens`);
          }
          report.alreadyPresent++;
          continue;
        }
        try {
          await insertImportedToken(trx, {
              id,
              tokenable_type: String(row.tokenable_type),
              tokenable_id: Number(row.tokenable_id),
              name: String(row.name),
              token: hash,
              abilities: text(row.abilities),
              last_used_at: timestamp(row.last_used_at, null),
              expires_at: timestamp(row.expires_at, null),
              created_at: timestamp(row.created_at, importedAt),
              updated_at: timestamp(row.updated_at, importedAt),
          });
        } catch (err) {
          if (isUniqueViolation(err)) throw new ImportError(`token id ${id}: the same token hash is already in the tenant`);
          throw err;
        }
        report.imported++;
      }
    });
    report.read += rows.length;
    options.onProgress(`personal_access_tokens: ${report.read} read`);
  }
  return report;
}

export async function importFromLaravel(source: SourceDb, target: TargetDb, options: ImportOptions = {}): Promise<TableReport[]> {
  const settings: Required<ImportOptions> = {
    batchSize: options.batchSize ?? 500,
    onProgress: options.onProgress ?? (() => undefined),
    now: options.now ?? new Date(),
  };
  // Both tables are checked before anything is copied.
  await columnsOf(source, 'users', USER_COLUMNS);
  await columnsOf(source, 'personal_access_tokens', TOKEN_COLUMNS);
  const users = await importUsers(source, target, settings);
  const tokens = await importTokens(source, target, settings);
  return [users, tokens];
}
