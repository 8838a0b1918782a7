import { CsvError, parse } from 'csv-parse/sync';
import { errors, importMessages } from '../../errors.js';
import { unneutralise } from '../../lib/csv.js';

/** The person fields a file may set, in the JSON order of a person. */
export const IMPORTED_FIELDS = [
  'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile', 'street',
  'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'birthday',
] as const;
export type ImportedField = (typeof IMPORTED_FIELDS)[number];

/** Columns of an export that the import cannot set: accepted and ignored, so an export re-imports as it is. */
const IGNORED_COLUMNS = new Set(['id', 'has_login', 'created_at', 'updated_at']);

/** One data row: its number as a spreadsheet shows it (the header is row 1) and its cells by field. */
export interface ImportRow {
  row: number;
  cells: Partial<Record<ImportedField, string>>;
  /** Cells beyond the header's columns that hold something. */
  overflowing: boolean;
}

export interface ImportFile {
  fields: ReadonlySet<ImportedField>;
  rows: ImportRow[];
}

const fileError = (messages: readonly string[]) => errors.validation({ file: [...new Set(messages)] });

/**
 * Rows without data a file may hold besides its data rows (cells of spaces only, or separators
 * only, as spreadsheets export them): four times `maxRows`. csv-parse makes an error object for
 * every row whose cell count differs from the header's (about 10 us each, even when told to
 * accept them), so a body of such rows would otherwise hold the process for a minute. Empty lines
 * cost nothing and are not counted.
 */
const ROWS_WITHOUT_DATA_PER_ROW = 4;

/**
 * Comma or semicolon, decided from the header row (spreadsheets in German- and French-speaking
 * countries write semicolons): whichever of the two it holds more of.
 */
function separatorOf(text: string): ',' | ';' {
  const start = text.search(/[^\r\n]/);
  const end = text.indexOf('\n', start);
  const header = text.slice(start, end === -1 ? undefined : end);
  const count = (separator: string) => header.split(separator).length - 1;
  return count(';') > count(',') ? ';' : ',';
}

/** Header names -> the field of each column (null: a column that is ignored), or 422 on `file`. */
function columnsOf(header: string[]): (ImportedField | null)[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const columns = header.map((raw, index) => {
    const name = raw.trim().toLowerCase();
    if (name === '') {
      problems.push(importMessages.unnamedColumn(index + 1));
      return null;
    }
    if (seen.has(name)) problems.push(importMessages.repeatedColumn(name));
    seen.add(name);
    if (name === 'password') problems.push(importMessages.passwordColumn);
    else if ((IMPORTED_FIELDS as readonly string[]).includes(name)) return name as ImportedField;
    else if (!IGNORED_COLUMNS.has(name)) problems.push(importMessages.unknownColumn(raw.trim()));
    return null;
  });
  if (problems.length > 0) throw fileError(problems);
  return columns;
}

function csvProblem(err: CsvError): string {
  // `records` counts the records read before the one that failed; the header is row 1.
  const { records = 0, empty_lines: skipped = 0 } = err as unknown as { records?: number; empty_lines?: number };
  const row = Number(records) + Number(skipped) + 1;
  if (err.code === 'CSV_QUOTE_NOT_CLOSED') return importMessages.quoteNotClosed(row);
  if (err.code === 'CSV_INVALID_CLOSING_QUOTE') return importMessages.textAfterQuote(row);
  return importMessages.notCsv(row);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * A CSV body as rows of cells by person field: UTF-8 with or without BOM,
 * comma or semicolon separated, quoted cells holding separators, quotes and line breaks. Cells
 * lose the `'` that the export put before a formula-looking text. A file that is not one, names
 * a column the import does not know, or has more than `maxRows` data rows is 422 on `file`.
 * Rows with no text at all are skipped (but keep their number, as a spreadsheet shows them); a
 * header after empty lines is the header.
 */
export function parseImportFile(body: Buffer | undefined, maxRows: number): ImportFile {
  let text: string;
  try {
    // The decoder drops a leading BOM.
    text = UTF8.decode(body ?? Buffer.alloc(0));
  } catch {
    throw fileError([importMessages.notUtf8]);
  }
  if (text.trim() === '') throw fileError([importMessages.noHeader]);
  const tooManyRows = () => fileError([importMessages.tooManyRows(maxRows)]);
  const maxRecords = 1 + maxRows * (1 + ROWS_WITHOUT_DATA_PER_ROW);
  /** The row number of each data row kept, in order. */
  const rowNumbers: number[] = [];
  let records: string[][];
  try {
    records = parse(text, {
      delimiter: separatorOf(text),
      relax_column_count: true,
      skip_empty_lines: true,
      // Read row by row: rows without data are dropped at once, and reading stops at the first
      // row too many, so neither time nor memory grows beyond the limits with the body. A row's
      // number is as a spreadsheet shows it, empty lines counted (the header is row 1).
      on_record: (record, { records: read, empty_lines: skipped }) => {
        if (read > maxRecords) throw tooManyRows();
        if (read === 1) return record;
        if (record.every((cell) => cell.trim() === '')) return null;
        if (rowNumbers.push(read + skipped) > maxRows) throw tooManyRows();
        return record;
      },
    });
  } catch (err) {
    if (err instanceof CsvError) throw fileError([csvProblem(err)]);
    throw err;
  }
  const [header = [], ...data] = records;
  const columns = columnsOf(header);
  const rows: ImportRow[] = [];
  for (const [index, record] of data.entries()) {
    const cells: ImportRow['cells'] = {};
    columns.forEach((field, column) => {
      if (field !== null) cells[field] = unneutralise(record[column] ?? '');
    });
    const overflowing = record.slice(columns.length).some((cell) => cell !== '');
    rows.push({ row: rowNumbers[index]!, cells, overflowing });
  }
  return { fields: new Set(columns.filter((field): field is ImportedField => field !== null)), rows };
}
