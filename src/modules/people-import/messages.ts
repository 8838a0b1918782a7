import { ApiError } from '../../errors.js';

// The words of the CSV import (data.md section 2). They belong in errors.ts's catalogue (a
// `importMessages` block and an `unsupportedCsvMediaType` factory); kept here until it has them.

export const importMessages = {
  passwordColumn: 'The password column cannot be imported.',
  unknownColumn: (name: string) => `The file has an unknown column: ${name}.`,
  unnamedColumn: (position: number) => `Column ${position} of the header has no name.`,
  repeatedColumn: (name: string) => `The column ${name} appears more than once.`,
  noHeader: 'The file must have a header row.',
  notUtf8: 'The file must be UTF-8 text.',
  tooManyRows: (max: number) => `The file must not have more than ${max} rows.`,
  quoteNotClosed: (row: number) => `A quoted cell that begins in row ${row} is never closed.`,
  textAfterQuote: (row: number) => `A quoted cell in row ${row} has text after its closing quote.`,
  notCsv: (row: number) => `The file is not valid CSV from row ${row} on.`,
  tooManyCells: 'The row has more cells than the header has columns.',
  usernameNotImported: 'The username field cannot be set by import.',
  emailTakenInRow: (row: number) => `The email has already been taken in row ${row}.`,
  samePersonAsRow: (row: number) => `The row matches the same person as row ${row}.`,
  mayNotChange: 'You may not change the person this row matches.',
} as const;

/** 415 of the import route: it takes CSV only (decisions.md section 5 has the JSON wording). */
export const unsupportedCsvMediaType = () =>
  new ApiError('unsupported_media_type', 'Unsupported Media Type. Send CSV with Content-Type: text/csv.');
