import { CsvError, parse } from 'csv-parse/sync';
import { errors, importMessages } from '../../errors.js';
import { unneutralise } from '../../lib/csv.js';
import { decodeCsv, type Charset } from './decode.js';
import { columnsOf, type Column, type ImportedField } from './headers.js';
import { isMonthFirstDate } from './values.js';

export { IMPORTED_FIELDS, type ImportedField } from './headers.js';

/** One data row: its number as a spreadsheet shows it (the header is row 1) and its cells by field. */
export interface ImportRow {
  row: number;
  cells: Partial<Record<ImportedField, string>>;
  /** Cells beyond the header's columns that hold something. */
  overflowing: boolean;
  /** What reading found wrong with a cell, by field (an XLSX error value such as `#N/A`): the field is not read. */
  cellProblems: Partial<Record<ImportedField, string[]>>;
}

export interface ImportFile {
  fields: ReadonlySet<ImportedField>;
  rows: ImportRow[];
  /** Each column of the header and the field it was read as (null: ignored). */
  columns: Column[];
  /** Headers that match no field, ignored at the caller's request (`ignore_unknown=true`). */
  ignoredColumns: string[];
}

export interface ImportFileOptions {
  /** Ignore (and list) columns that match no field instead of refusing the file. */
  ignoreUnknown?: boolean;
  /** The `charset` of the request's Content-Type. */
  charset?: Charset;
}

/** A file as read, before its header is understood: the header's cells, then each data row's. */
export interface SheetTable {
  header: string[];
  rows: {
    row: number;
    cells: string[];
    /** Error values (`#N/A`) by column. */
    errors?: ReadonlyMap<number, string>;
    /** Whether cells beyond the header's columns hold something (else: read from `cells`). */
    overflowing?: boolean;
  }[];
}

export const fileError = (messages: readonly string[]) => errors.validation({ file: [...new Set(messages)] });

/**
 * Rows without data a file may hold besides its data rows (cells of spaces only, or separators
 * only, as spreadsheets export them): four times `maxRows`. csv-parse makes an error object for
 * every row whose cell count differs from the header's (about 10 us each, even when told to
 * accept them), so a body of such rows would otherwise hold the process for a minute. Empty lines
 * cost nothing and are not counted.
 */
export const ROWS_WITHOUT_DATA_PER_ROW = 4;

/**
 * Comma, semicolon or tab, decided from the header row (spreadsheets in German- and
 * French-speaking countries write semicolons, Excel's "Unicode text" tabs): whichever it holds
 * most of, a comma when none.
 */
function separatorOf(text: string): ',' | ';' | '\t' {
  const start = text.search(/[^\r\n]/);
  const end = text.indexOf('\n', start);
  const header = text.slice(start, end === -1 ? undefined : end);
  const count = (separator: string) => header.split(separator).length - 1;
  let best: ',' | ';' | '\t' = ',';
  for (const separator of [';', '\t'] as const) if (count(separator) > count(best)) best = separator;
  return best;
}

function csvProblem(err: CsvError): string {
  // `records` counts the records read before the one that failed; the header is row 1.
  const { records = 0, empty_lines: skipped = 0 } = err as unknown as { records?: number; empty_lines?: number };
  const row = Number(records) + Number(skipped) + 1;
  if (err.code === 'CSV_QUOTE_NOT_CLOSED') return importMessages.quoteNotClosed(row);
  if (err.code === 'CSV_INVALID_CLOSING_QUOTE') return importMessages.textAfterQuote(row);
  return importMessages.notCsv(row);
}

/**
 * The table of a file, whatever its form, as rows of cells by person field. A header that names a
 * column the import does not know (unless `ignoreUnknown`), or a slash date written month first,
 * is 422 on `file`.
 */
export function importFileOf(table: SheetTable, options: { ignoreUnknown: boolean; unneutralise: boolean }): ImportFile {
  const found = columnsOf(table.header, options.ignoreUnknown);
  if ('problems' in found) throw fileError(found.problems);
  const { columns, ignored } = found;
  const birthdayColumn = columns.findIndex((column) => column.field === 'birthday');
  const rows: ImportRow[] = [];
  for (const record of table.rows) {
    const cells: ImportRow['cells'] = {};
    const cellProblems: ImportRow['cellProblems'] = {};
    columns.forEach(({ field }, column) => {
      if (field === null) return;
      const error = record.errors?.get(column);
      if (error !== undefined) cellProblems[field] = [importMessages.spreadsheetError(field, error)];
      else cells[field] = options.unneutralise ? unneutralise(record.cells[column] ?? '') : (record.cells[column] ?? '');
    });
    if (birthdayColumn !== -1 && isMonthFirstDate(record.cells[birthdayColumn] ?? '')) throw fileError([importMessages.monthFirstDates]);
    const overflowing = record.overflowing ?? record.cells.slice(columns.length).some((cell) => cell !== '');
    rows.push({ row: record.row, cells, overflowing, cellProblems });
  }
  const fields = new Set(columns.flatMap(({ field }) => (field === null ? [] : [field])));
  return { fields, rows, columns, ignoredColumns: ignored };
}

/**
 * A CSV body as rows of cells by person field: UTF-8 (with or without BOM), UTF-16 with a BOM,
 * or Windows-1252 (see decodeCsv); comma, semicolon or tab separated, quoted cells holding
 * separators, quotes and line breaks. Cells lose the `'` that the export put before a
 * formula-looking text. A file that is not one, names a column the import does not know, or has
 * more than `maxRows` data rows is 422 on `file`. Rows with no text at all are skipped (but keep
 * their number, as a spreadsheet shows them); a header after empty lines is the header.
 */
export function parseImportFile(body: Buffer | undefined, maxRows: number, options: ImportFileOptions = {}): ImportFile {
  const text = decodeCsv(body ?? Buffer.alloc(0), options.charset);
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
  const rows = data.map((cells, index) => ({ row: rowNumbers[index]!, cells }));
  return importFileOf({ header, rows }, { ignoreUnknown: options.ignoreUnknown === true, unneutralise: true });
}
