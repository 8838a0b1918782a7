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
export type DownloadFormat = 'json' | 'csv' | 'xlsx';
export type FileFormat = Exclude<DownloadFormat, 'json'>;

const BY_MEDIA_TYPE: Readonly<Record<string, FileFormat>> = { 'text/csv': 'csv', [XLSX_MEDIA_TYPE]: 'xlsx' };

/** The `format` query parameter of a list that offers `offered` (json first). */
export const FormatParameter = <const F extends DownloadFormat>(offered: readonly F[]) =>
  Type.Optional(
    Type.Union(
      offered.map((format) => Type.Literal(format)),
      { description: `${offered.join(', ')}; wins over Accept` },
    ),
  );

/** The form of the answer: `format` when given (the query schema let only offered ones through), else by Accept. */
export function downloadFormatOf(request: FastifyRequest, offered: readonly DownloadFormat[], format: DownloadFormat | undefined): DownloadFormat {
  if (format !== undefined) return format;
  const first = (request.headers.accept ?? '').split(',')[0]?.split(';')[0]?.trim().toLowerCase() ?? '';
  const asked = BY_MEDIA_TYPE[first];
  return asked !== undefined && offered.includes(asked) ? asked : 'json';
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

/** Sends `download` streamed as `format`, as an attachment named `<name>.<format>`. */
export async function sendDownload(reply: FastifyReply, format: FileFormat, download: Download): Promise<FastifyReply> {
  if (format === 'csv') return sendCsv(reply, `${download.name}.csv`, await csvStream(download.columns.map((column) => column.name), download.rows));
  const body = await xlsxStream(download.sheet, download.columns, download.rows);
  return reply.header('content-type', XLSX_MEDIA_TYPE).header('content-disposition', attachment(`${download.name}.xlsx`)).send(body);
}

/** A 200 answer documented as JSON (`schema`), or as a CSV or XLSX file (attachment). */
export const JsonOrFiles = (schema: TSchema, files: { csv: string; xlsx: string }) => ({
  description: `JSON; or a file (attachment): CSV with \`format=csv\` or \`Accept: text/csv\`, XLSX with \`format=xlsx\` or \`Accept: ${XLSX_MEDIA_TYPE}\``,
  content: {
    'application/json': { schema },
    'text/csv': { schema: Type.String({ description: files.csv }) },
    [XLSX_MEDIA_TYPE]: { schema: Type.String({ format: 'binary', description: files.xlsx }) },
  },
});
