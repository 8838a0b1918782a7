import type { Readable } from 'node:stream';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import unzipper, { type CentralDirectoryFile } from 'unzipper';
import { ApiError, importMessages } from '../../errors.js';
import { fileError, ROWS_WITHOUT_DATA_PER_ROW, type SheetTable } from './parse.js';
import { formatNumber, numberFormatOf, serialToDay, type NumberFormat } from './number-format.js';

/**
 * Reading an XLSX workbook (a zip of XML parts) with bounded work, whatever the upload: a few KiB
 * of zip can inflate to gigabytes, and an XML part can ask for entities. The zip is read with
 * unzipper and the XML with saxes, the libraries exceljs itself reads workbooks with; exceljs's
 * own streaming reader reads every part in zip order (to temporary files when a sheet comes before
 * its strings), cannot be held to the first sheet in tab order, and loses error values of formula
 * cells, so the parts below are read here, each as a stream, under these limits.
 */
export const XLSX_LIMITS = Object.freeze({
  maxEntries: 1000,
  maxInflatedBytes: 100 * 1024 * 1024,
  /** A part may inflate to at most this many times its compressed size. */
  maxRatio: 100,
});

/** Anything that makes the file no workbook this reader takes; answered as one 422. */
class NotReadable extends Error {}

const notReadable = () => fileError([importMessages.notXlsx]);

/** The number of entries the zip's end record announces, or null when there is no end record (not a zip). */
function entryCountOf(body: Buffer): number | null {
  const END_RECORD = 0x06054b50;
  for (let at = body.length - 22; at >= Math.max(0, body.length - 22 - 0xffff); at -= 1) {
    if (body.readUInt32LE(at) === END_RECORD) return body.readUInt16LE(at + 10);
  }
  return null;
}

/** The inflated bytes left to the whole workbook. */
class Budget {
  remaining = XLSX_LIMITS.maxInflatedBytes;
}

type Handlers = {
  open?: (tag: SaxesTagPlain) => void;
  text?: (text: string) => void;
  close?: (tag: SaxesTagPlain) => void;
};

/**
 * Streams one part through an XML parser: inflated as it is read, stopped as soon as it passes its
 * own cap (`maxRatio` times its compressed size) or the workbook's, refused at a DOCTYPE (no
 * entity of the file is ever expanded). A handler may throw to stop reading early.
 */
async function readPart(file: CentralDirectoryFile, budget: Budget, handlers: Handlers): Promise<void> {
  const cap = file.compressedSize * XLSX_LIMITS.maxRatio;
  const parser = new SaxesParser();
  parser.on('doctype', () => {
    throw new NotReadable('doctype');
  });
  parser.on('error', () => {
    throw new NotReadable('xml');
  });
  if (handlers.open) parser.on('opentag', handlers.open);
  if (handlers.close) parser.on('closetag', handlers.close);
  if (handlers.text) {
    parser.on('text', handlers.text);
    parser.on('cdata', handlers.text);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const stream: Readable = file.stream();
  let inflated = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      budget.remaining -= chunk.length;
      if (inflated > cap || budget.remaining < 0) throw new NotReadable('inflates beyond the limits');
      parser.write(decoder.decode(chunk, { stream: true }));
    }
    parser.write(decoder.decode());
    parser.close();
  } catch (err) {
    if (err instanceof NotReadable || err instanceof ApiError) throw err;
    // A broken deflate stream, text that is not UTF-8.
    throw new NotReadable(String(err));
  } finally {
    // Stopped early, the zip reader may still report what it meets after: nobody is listening then.
    stream.on('error', () => {});
    stream.destroy();
  }
}

const attribute = (tag: SaxesTagPlain, name: string): string | undefined => tag.attributes[name];
/** `r:id`, whatever prefix the workbook gives the relationships namespace. */
const relationshipId = (tag: SaxesTagPlain): string | undefined =>
  Object.entries(tag.attributes).find(([name]) => name.endsWith(':id'))?.[1];

/** A relationship's target as a path in the zip: relative to `xl/`, or absolute. */
function partPath(target: string): string {
  const parts: string[] = [];
  for (const segment of (target.startsWith('/') ? target.slice(1) : `xl/${target}`).split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

/** `B7` -> 1 (columns from 0); null for a reference beyond XFD. */
function columnOf(reference: string): number | null {
  const letters = /^([A-Z]{1,3})\d*$/i.exec(reference)?.[1]?.toUpperCase();
  if (letters === undefined) return null;
  let column = 0;
  for (const letter of letters) column = column * 26 + (letter.charCodeAt(0) - 64);
  return column <= 16_384 ? column - 1 : null;
}

interface Workbook {
  date1904: boolean;
  sharedStrings: string[];
  formats: NumberFormat[];
}

async function readWorkbook(files: Map<string, CentralDirectoryFile>, budget: Budget): Promise<{ workbook: Workbook; sheet: CentralDirectoryFile }> {
  const part = (path: string) => files.get(path);
  const workbookPart = part('xl/workbook.xml');
  const relsPart = part('xl/_rels/workbook.xml.rels');
  if (!workbookPart || !relsPart) throw new NotReadable('no workbook');

  let date1904 = false;
  let firstSheetId: string | undefined;
  await readPart(workbookPart, budget, {
    open: (tag) => {
      if (tag.name === 'workbookPr') date1904 = ['1', 'true'].includes(attribute(tag, 'date1904') ?? '');
      if (tag.name === 'sheet' && firstSheetId === undefined) firstSheetId = relationshipId(tag) ?? '';
    },
  });
  const targets = new Map<string, string>();
  let sharedStringsPath: string | undefined;
  let stylesPath: string | undefined;
  await readPart(relsPart, budget, {
    open: (tag) => {
      if (tag.name !== 'Relationship') return;
      const target = attribute(tag, 'Target');
      if (target === undefined || attribute(tag, 'TargetMode') === 'External') return;
      targets.set(attribute(tag, 'Id') ?? '', partPath(target));
      const type = attribute(tag, 'Type') ?? '';
      if (type.endsWith('/sharedStrings')) sharedStringsPath = partPath(target);
      if (type.endsWith('/styles')) stylesPath = partPath(target);
    },
  });
  const sheet = firstSheetId === undefined ? undefined : part(targets.get(firstSheetId) ?? '');
  if (!sheet) throw new NotReadable('no first sheet');

  const sharedStrings: string[] = [];
  const stringsPart = sharedStringsPath === undefined ? undefined : part(sharedStringsPath);
  if (stringsPart) {
    let text: string | null = null;
    let inText = false;
    let phonetic = 0;
    await readPart(stringsPart, budget, {
      open: (tag) => {
        if (tag.name === 'si') text = '';
        else if (tag.name === 'rPh') phonetic += 1;
        else if (tag.name === 't' && phonetic === 0) inText = true;
      },
      text: (chunk) => {
        if (inText && text !== null) text += chunk;
      },
      close: (tag) => {
        if (tag.name === 't') inText = false;
        else if (tag.name === 'rPh') phonetic -= 1;
        else if (tag.name === 'si' && text !== null) {
          sharedStrings.push(unescapeText(text));
          text = null;
        }
      },
    });
  }

  const custom = new Map<number, string>();
  const formatIds: number[] = [];
  const stylesPart = stylesPath === undefined ? undefined : part(stylesPath);
  if (stylesPart) {
    let inCellXfs = false;
    await readPart(stylesPart, budget, {
      open: (tag) => {
        if (tag.name === 'numFmt') custom.set(Number(attribute(tag, 'numFmtId')), attribute(tag, 'formatCode') ?? 'General');
        else if (tag.name === 'cellXfs') inCellXfs = true;
        else if (tag.name === 'xf' && inCellXfs) formatIds.push(Number(attribute(tag, 'numFmtId') ?? 0));
      },
      close: (tag) => {
        if (tag.name === 'cellXfs') inCellXfs = false;
      },
    });
  }
  const formats = formatIds.map((id) => numberFormatOf(id, custom));
  return { workbook: { date1904, sharedStrings, formats }, sheet };
}

const GENERAL = numberFormatOf(0, new Map());

/**
 * Text as the workbook means it: OOXML writes characters XML cannot hold (a carriage return, other
 * control characters) as `_x000D_`, and a literal `_x` as `_x005F_x`.
 */
const unescapeText = (text: string): string => text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A cell's `<v>` (or inline text) as the text the import reads; `error`: an error value such as `#N/A`. */
function cellText(workbook: Workbook, type: string, style: number, value: string): { text: string } | { error: string } {
  switch (type) {
    case 's': {
      const shared = workbook.sharedStrings[Number(value)];
      if (shared === undefined) throw new NotReadable('shared string');
      return { text: shared };
    }
    case 'str':
    case 'inlineStr':
      return { text: unescapeText(value) };
    case 'b':
      return { text: value.trim() === '1' ? 'true' : 'false' };
    case 'e':
      return { error: value };
    case 'd':
      return { text: /^\d{4}-\d{2}-\d{2}/.exec(value)?.[0] ?? value };
    default: {
      if (value.trim() === '') return { text: '' };
      const number = Number(value);
      if (!Number.isFinite(number)) return { text: value };
      const format = workbook.formats[style] ?? GENERAL;
      if (format.isDate) return { text: serialToDay(number, workbook.date1904) ?? value };
      return { text: formatNumber(number, format) };
    }
  }
}

/**
 * The first worksheet (in tab order) of an XLSX body as a table: its first row with text is the
 * header, rows are numbered as the sheet numbers them. Date cells read as `YYYY-MM-DD`, numbers as
 * their format shows them, formula cells as their cached value (never evaluated), booleans as
 * `true`/`false`. Reading stops at the first data row beyond `maxRows` (422 on `file`); a body
 * that is no such workbook, or passes a limit of XLSX_LIMITS, is 422 on `file`,
 * `The file is not a readable XLSX workbook.`
 */
export async function readXlsx(body: Buffer | undefined, maxRows: number): Promise<SheetTable> {
  try {
    return await readSheet(body ?? Buffer.alloc(0), maxRows);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // An encrypted workbook is an OLE compound file (D0 CF 11 E0 ...), not a zip: no end record.
    throw notReadable();
  }
}

async function readSheet(body: Buffer, maxRows: number): Promise<SheetTable> {
  const entries = entryCountOf(body);
  if (entries === null || entries > XLSX_LIMITS.maxEntries) throw new NotReadable('entries');
  const directory = await unzipper.Open.buffer(body);
  if (directory.files.length > XLSX_LIMITS.maxEntries) throw new NotReadable('entries');
  const files = new Map<string, CentralDirectoryFile>();
  for (const file of directory.files) {
    // Encrypted entries, and methods other than stored and deflated, are not read.
    if ((file.flags & 0x1) !== 0 || (file.compressionMethod !== 0 && file.compressionMethod !== 8)) continue;
    files.set(file.path, file);
  }
  const budget = new Budget();
  const { workbook, sheet } = await readWorkbook(files, budget);

  const tooManyRows = () => fileError([importMessages.tooManyRows(maxRows)]);
  const maxRowsRead = maxRows * (1 + ROWS_WITHOUT_DATA_PER_ROW);
  let header: string[] | null = null;
  const rows: SheetTable['rows'] = [];
  let rowsRead = 0;
  let rowNumber = 0;
  // A row's cells by column: a sheet may place a single cell at column XFD, so rows are not padded
  // until the header says how wide they are.
  let cells = new Map<number, string>();
  let errors = new Map<number, string>();
  let cell: { column: number; type: string; style: number; value: string } | null = null;
  let nextColumn = 0;
  let inValue = false;
  let phonetic = 0;
  const endRow = () => {
    const hasData = [...cells.values()].some((text) => text.trim() !== '');
    if (header === null) {
      // The header ends at its last named column: Excel keeps styled empty cells after it.
      if (hasData) {
        const width = Math.max(...[...cells].filter(([, text]) => text.trim() !== '').map(([column]) => column)) + 1;
        header = Array.from({ length: width }, (_, column) => cells.get(column) ?? '');
      }
      return;
    }
    rowsRead += 1;
    if (!hasData) {
      if (rowsRead > maxRowsRead) throw tooManyRows();
      return;
    }
    const width = header.length;
    const overflowing = [...cells].some(([column, text]) => column >= width && text !== '');
    rows.push({ row: rowNumber, cells: Array.from({ length: width }, (_, column) => cells.get(column) ?? ''), errors, overflowing });
    if (rows.length > maxRows) throw tooManyRows();
  };
  await readPart(sheet, budget, {
    open: (tag) => {
      switch (tag.name) {
        case 'row':
          rowNumber = Number(attribute(tag, 'r') ?? rowNumber + 1) || rowNumber + 1;
          cells = new Map();
          errors = new Map();
          nextColumn = 0;
          break;
        case 'c': {
          const reference = attribute(tag, 'r');
          const column = reference === undefined ? nextColumn : columnOf(reference);
          if (column === null) throw new NotReadable('cell reference');
          nextColumn = column + 1;
          cell = { column, type: attribute(tag, 't') ?? 'n', style: Number(attribute(tag, 's') ?? 0), value: '' };
          break;
        }
        case 'v':
          inValue = true;
          break;
        case 't':
          // Inline text; phonetic runs (rPh) are a reading aid, not the text.
          if (cell?.type === 'inlineStr' && phonetic === 0) inValue = true;
          break;
        case 'rPh':
          phonetic += 1;
          break;
      }
    },
    text: (text) => {
      if (inValue && cell) cell.value += text;
    },
    close: (tag) => {
      switch (tag.name) {
        case 'v':
        case 't':
          inValue = false;
          break;
        case 'rPh':
          phonetic -= 1;
          break;
        case 'c':
          if (cell) {
            const read = cellText(workbook, cell.type, cell.style, cell.value);
            if ('error' in read) errors.set(cell.column, read.error);
            cells.set(cell.column, 'error' in read ? read.error : read.text);
          }
          cell = null;
          break;
        case 'row':
          endRow();
          break;
      }
    },
  });
  if (header === null) throw fileError([importMessages.noHeader]);
  return { header, rows };
}
