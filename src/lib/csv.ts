import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/**
 * The one CSV format of the service: UTF-8 without BOM,
 * comma separated, CRLF line ends, booleans `true`/`false`, null an empty cell. Quoting is
 * csv-stringify's (separators, quotes and line breaks inside a cell).
 */
export type Cell = string | number | boolean | null | undefined;

/**
 * A cell that a spreadsheet would run as a formula (OWASP's CSV-injection advice): text that
 * begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so it shows as text.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEUTRALISED = /^'[=+\-@\t\r]/;

export const neutralise = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

/** The import's inverse of neutralise: `'=1+2` is `=1+2` again; every other text stays as given. */
export const unneutralise = (text: string): string => (NEUTRALISED.test(text) ? text.slice(1) : text);

/** A value as its cell's text. */
export function cellText(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  return neutralise(value);
}

/**
 * A CSV document streamed from `rows` (read one at a time, as the reader drains the stream, so a
 * list of any length is sent in constant memory).
 *
 * The first row is read before the stream is made: an error there (a storage fault on the first
 * page) rejects this promise, and the caller answers it like any other error, before a byte is
 * sent. A later error ends the stream with it; the stream keeps the error for its reader (Fastify
 * takes the answer a turn later, see batched-answers.ts) instead of throwing it as an 'error'
 * event nobody listens to yet, which would end the process.
 */
export async function csvStream(header: readonly string[], rows: AsyncIterable<readonly Cell[]>): Promise<Readable> {
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  // csv-stringify quotes a cell holding the record delimiter (CRLF), not a lone LF or CR, which
  // every reader also takes for the end of a row: any line break is quoted.
  const stringifier = stringify({ record_delimiter: '\r\n', bom: false, quoted_match: /[\r\n]/ });
  async function* records() {
    yield header.map((name) => name);
    if (first.done) return;
    yield first.value.map(cellText);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value.map(cellText);
  }
  const source = Readable.from(records());
  source.on('error', (err) => stringifier.destroy(err));
  stringifier.on('error', () => {});
  return source.pipe(stringifier);
}

/** `Content-Disposition` of a download named `filename` (ASCII names only are made here). */
export const attachment = (filename: string): string => `attachment; filename="${filename}"`;
