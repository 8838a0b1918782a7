import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import { attachment, csvStream, type Cell } from '../lib/csv.js';
import { xlsxStream, XLSX_MEDIA_TYPE, type SheetColumn } from '../lib/xlsx.js';
import { sendCsv } from './csv.js';

/**
 * Lists that also answer as files (the members of a group, an event's participants, the people
 * list): which form the caller asked for, and the file itself. The `format` query parameter wins
 * over `Accept`; `Accept` counts by its first media type only (a browser's long list asks for
 * JSON). A list names the formats it offers; any other `format` is 422 on `format`, "The
 * selected format is invalid." (its query schema refuses it).
 */
export type DownloadFormat = 'json' | 'csv' | 'xlsx' | 'vcf';
export type FileFormat = Exclude<DownloadFormat, 'json'>;
/** The formats made of rows and columns. */
export type TableFormat = Exclude<FileFormat, 'vcf'>;

/** vCard 4.0 (RFC 6350); `text/x-vcard` is the older name that some address books still send. */
export const VCARD_MEDIA_TYPE = 'text/vcard; charset=utf-8';

const BY_MEDIA_TYPE: Readonly<Record<string, FileFormat>> = { 'text/csv': 'csv', [XLSX_MEDIA_TYPE]: 'xlsx', 'text/vcard': 'vcf', 'text/x-vcard': 'vcf' };

/** The `format` query parameter of a list that offers `offered` (json first). */
export const FormatParameter = <const F extends DownloadFormat>(offered: readonly F[]) =>
  Type.Optional(
    Type.Union(
      offered.map((format) => Type.Literal(format)),
      { description: `${offered.join(', ')}; wins over Accept` },
    ),
  );

/** The first media type of the request's Accept, lower case, without parameters ('' when none). */
export function firstAcceptedType(request: FastifyRequest): string {
  return (request.headers.accept ?? '').split(',')[0]?.split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * Adds a request header to the answer's `Vary` (kept once, beside what is there, such as CORS's
 * `Origin`): an answer chosen by that header must not be served from a cache for another value.
 */
export function varyOn(reply: FastifyReply, header: string): void {
  const present = String(reply.getHeader('vary') ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  if (!present.some((name) => name.toLowerCase() === header.toLowerCase())) reply.header('vary', [...present, header].join(', '));
}

/** The form of the answer: `format` when given (the query schema let only offered ones through), else by Accept. */
export function downloadFormatOf<F extends DownloadFormat>(request: FastifyRequest, offered: readonly F[], format: F | undefined): F | 'json' {
  if (format !== undefined) return format;
  const asked = BY_MEDIA_TYPE[firstAcceptedType(request)];
  return asked !== undefined && (offered as readonly DownloadFormat[]).includes(asked) ? (asked as F) : 'json';
}

/** A list as a file: its columns (each with the kind of its cells, for XLSX) and its rows, read as the file is sent. */
export interface Download {
  /** The file's name without its extension, e.g. `members-4-2026-12-01`. */
  name: string;
  /** The worksheet's name in an XLSX file (at most 31 characters). */
  sheet: string;
  columns: readonly SheetColumn[];
  rows: AsyncIterable<readonly Cell[]>;
}

/** A list as a vCard file: its cards as text, read as the file is sent. */
export interface CardsDownload {
  /** The file's name without its extension, e.g. `people-2026-12-01`. */
  name: string;
  cards: AsyncIterable<string>;
}

/**
 * Text streamed from `chunks`, read as the reader drains it. As csvStream does: the first chunk
 * is read before the stream is made (an error there is answered like any other, before a byte
 * is sent), and a later error stays with the stream for its reader.
 */
async function textStream(chunks: AsyncIterable<string>): Promise<Readable> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* all() {
    if (first.done) return;
    yield Buffer.from(first.value, 'utf8');
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield Buffer.from(next.value, 'utf8');
  }
  const stream = Readable.from(all());
  stream.on('error', () => {});
  return stream;
}

/** Sends `download` streamed as `format`, as an attachment named `<name>.<format>`. */
export async function sendDownload(reply: FastifyReply, format: TableFormat, download: Download): Promise<FastifyReply>;
export async function sendDownload(reply: FastifyReply, format: 'vcf', download: CardsDownload): Promise<FastifyReply>;
export async function sendDownload(reply: FastifyReply, format: FileFormat, download: Download | CardsDownload): Promise<FastifyReply> {
  if (format === 'vcf') {
    const { name, cards } = download as CardsDownload;
    return reply.header('content-type', VCARD_MEDIA_TYPE).header('content-disposition', attachment(`${name}.vcf`)).send(await textStream(cards));
  }
  const table = download as Download;
  if (format === 'csv') return sendCsv(reply, `${table.name}.csv`, await csvStream(table.columns.map((column) => column.name), table.rows));
  const body = await xlsxStream(table.sheet, table.columns, table.rows);
  return reply.header('content-type', XLSX_MEDIA_TYPE).header('content-disposition', attachment(`${table.name}.xlsx`)).send(body);
}

/** `Content-Disposition` as the document declares it on a file answer that names it itself (the lists' CSV ones are declared by http/openapi.ts). */
export const DISPOSITION_HEADER = { type: 'string', description: 'With a file answer: attachment; filename="<name>.<extension>"' };

/** A 200 answer documented as JSON (`schema`), or as a CSV or XLSX file (attachment), and a vCard file where the list offers one. */
export const JsonOrFiles = (schema: TSchema, files: { csv: string; xlsx: string; vcf?: string }) => ({
  description:
    `JSON; or a file (attachment): CSV with \`format=csv\` or \`Accept: text/csv\`, XLSX with \`format=xlsx\` or \`Accept: ${XLSX_MEDIA_TYPE}\`` +
    (files.vcf === undefined ? '' : ', vCard with `format=vcf` or `Accept: text/vcard` (or `text/x-vcard`)'),
  content: {
    'application/json': { schema },
    'text/csv': { schema: Type.String({ description: files.csv }) },
    [XLSX_MEDIA_TYPE]: { schema: Type.String({ format: 'binary', description: files.xlsx }) },
    ...(files.vcf === undefined ? {} : { 'text/vcard': { schema: Type.String({ description: files.vcf }) } }),
  },
});

/**
 * A 200 answer of one resource, documented as JSON (`schema`) or, with `Accept: <mediaType>`, as
 * a file (attachment): an event as iCalendar, a person as a vCard.
 */
export const JsonOrFile = (schema: TSchema, file: { mediaType: string; description: string }) => ({
  description: `JSON; or with \`Accept: ${file.mediaType}\` a file (attachment)`,
  headers: { 'Content-Disposition': DISPOSITION_HEADER },
  content: {
    'application/json': { schema },
    [file.mediaType]: { schema: Type.String({ description: file.description }) },
  },
});
