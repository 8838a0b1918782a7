import { PassThrough, type Readable } from 'node:stream';
import type { Cell } from './csv.js';

/**
 * The one XLSX format of the service's downloads: one worksheet, a bold header row that stays in
 * view (frozen), then one row per record. Each column says what its cells hold, so that a
 * spreadsheet gets its own types: numbers, booleans, days (`YYYY-MM-DD`) and moments (the API's
 * UTC timestamps) as dates. Text is always a string cell: never a formula, whatever it begins
 * with, and without the `'` that the CSV puts before `=`, `+`, `-`, `@` (a string cell is not run).
 */
export type CellKind = 'text' | 'number' | 'boolean' | 'day' | 'moment';

export interface SheetColumn {
  name: string;
  kind: CellKind;
}

/** The media type of an XLSX workbook. */
export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const DAY_FORMAT = 'yyyy-mm-dd';
const MOMENT_FORMAT = 'yyyy-mm-dd hh:mm:ss';
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

type SheetValue = string | number | boolean | Date | null;

/** A value as its cell holds it; a value that does not fit its column's kind stays text. */
function sheetValue(value: Cell, kind: CellKind): SheetValue {
  if (value === null || value === undefined) return null;
  if (kind === 'number' && typeof value === 'number') return value;
  if (kind === 'boolean' && typeof value === 'boolean') return value;
  if (kind === 'day' && typeof value === 'string') {
    const day = DAY.exec(value);
    // Midnight UTC: the day's whole serial number, whatever the server's time zone.
    if (day) return new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
  }
  if (kind === 'moment' && typeof value === 'string') {
    const moment = new Date(value);
    if (!Number.isNaN(moment.getTime())) return moment;
  }
  return xmlText(String(value));
}

/**
 * Characters XML cannot hold (U+FFFE, U+FFFF, lone surrogates; the control characters exceljs
 * drops itself) as U+FFFD: a name typed with one must not leave a workbook Excel calls damaged.
 */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const xmlText = (text: string): string => text.replace(NOT_XML, '\uFFFD');

const formatOf = (kind: CellKind): string | undefined => (kind === 'day' ? DAY_FORMAT : kind === 'moment' ? MOMENT_FORMAT : undefined);

/**
 * Rows per check of the reader's pace: between two checks at most this many rows wait in the
 * writer's buffers, so a slow reader holds the export back instead of filling memory.
 */
const ROWS_PER_PACE_CHECK = 100;

/**
 * An XLSX workbook streamed from `rows` (read one at a time, as the reader takes the file, so a
 * list of any length is sent in constant memory: no shared-strings table, rows written as they
 * come).
 *
 * As csvStream: the first row is read before the stream is made, so a fault there is an ordinary
 * error answer; a later fault ends the stream with it (the file is then unfinished, never a short
 * file that looks whole), kept for the reader rather than thrown where nobody listens.
 */
export async function xlsxStream(sheetName: string, columns: readonly SheetColumn[], rows: AsyncIterable<readonly Cell[]>): Promise<Readable> {
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  // Loaded when a workbook is asked for: the library is large, and most starts never need it.
  const { default: ExcelJS } = await import('exceljs');
  const output = new PassThrough();
  output.on('error', () => {});
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName, { views: [{ state: 'frozen', ySplit: 1 }] });
  const header = sheet.addRow(columns.map((column) => xmlText(column.name)));
  header.eachCell((cell) => {
    cell.font = { bold: true };
  });
  header.commit();
  const formats = columns.map((column) => formatOf(column.kind));
  const addRow = (cells: readonly Cell[]) => {
    const row = sheet.addRow(columns.map((column, index) => sheetValue(cells[index], column.kind)));
    formats.forEach((format, index) => {
      if (format !== undefined) row.getCell(index + 1).numFmt = format;
    });
    row.commit();
  };

  async function write() {
    let written = 0;
    if (!first.done) addRow(first.value);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (output.destroyed) {
        // The reader went away: stop reading rows.
        await iterator.return?.();
        return;
      }
      addRow(next.value);
      if (++written % ROWS_PER_PACE_CHECK === 0) await readerCaughtUp(output);
    }
    sheet.commit();
    await workbook.commit();
  }
  write().catch((err: unknown) => output.destroy(err as Error));
  return output;
}

/** Resolves once `output` takes more (its buffer drained), or when it is gone. */
function readerCaughtUp(output: PassThrough): Promise<void> {
  // A turn of the event loop first, so that the zip writer moves what was added into `output`.
  return new Promise((resolve) =>
    setImmediate(() => {
      if (!output.writableNeedDrain || output.destroyed) return resolve();
      const done = () => {
        output.off('drain', done);
        output.off('close', done);
        resolve();
      };
      output.once('drain', done);
      output.once('close', done);
    }),
  );
}
