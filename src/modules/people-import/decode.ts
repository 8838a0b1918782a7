import { errors, importMessages } from '../../errors.js';

/** The charsets a `Content-Type` may name for a CSV file (WHATWG reads ISO-8859-1 as Windows-1252, as browsers do). */
const DECLARED: Record<string, 'utf-8' | 'windows-1252'> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'windows-1252': 'windows-1252',
  'iso-8859-1': 'windows-1252',
  latin1: 'windows-1252',
};

export type Charset = 'utf-8' | 'windows-1252';

/** The `charset` parameter of a Content-Type: undefined when there is none; 422 on `file` when it is not one the import reads. */
export function charsetOf(contentType: string | undefined): Charset | undefined {
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (declared === undefined) return undefined;
  const charset = DECLARED[declared];
  if (charset === undefined) throw errors.validation({ file: [importMessages.unknownCharset] });
  return charset;
}

const decoderOf = (encoding: string) => new TextDecoder(encoding, { fatal: true, ignoreBOM: false });

/**
 * A CSV body as text. A byte order mark decides first: UTF-8, or UTF-16 LE or BE (Excel's
 * "Unicode text"). Then the declared charset. Without either, the whole body is tried as UTF-8,
 * and a body that is not valid UTF-8 is read as Windows-1252, which is what Excel on Windows
 * writes as "CSV" (every byte is a character there, so that reading never fails).
 */
export function decodeCsv(body: Buffer, declared: Charset | undefined): string {
  const bom = body.subarray(0, 3);
  const utf16 = bom[0] === 0xff && bom[1] === 0xfe ? 'utf-16le' : bom[0] === 0xfe && bom[1] === 0xff ? 'utf-16be' : undefined;
  if (utf16 !== undefined) {
    try {
      return decoderOf(utf16).decode(body);
    } catch {
      throw errors.validation({ file: [importMessages.notUtf16] });
    }
  }
  const utf8Bom = bom.length === 3 && bom[0] === 0xef && bom[1] === 0xbb && bom[2] === 0xbf;
  if (utf8Bom || declared !== 'windows-1252') {
    try {
      // The decoder drops a leading BOM.
      return decoderOf('utf-8').decode(body);
    } catch {
      // A file that says it is UTF-8 (by its BOM or its Content-Type) and is not: guessing would garble it.
      if (utf8Bom || declared === 'utf-8') throw errors.validation({ file: [importMessages.notUtf8] });
    }
  }
  return decoderOf('windows-1252').decode(body);
}
