/**
 * The value forms a cell may take in a file, beyond the API's own: dates and yes/no as people
 * type them in German-, French- and English-speaking spreadsheets.
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DOTTED_DATE = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/;
/** Day first, as everywhere the service's users live: 04/03/2014 is the 4th of March. */
const SLASHED_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

function isoDay(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** A date cell as `YYYY-MM-DD`, or null when it is none of the accepted forms (or no real day). */
export function parseDateCell(cell: string): string | null {
  const text = cell.trim();
  const iso = ISO_DATE.exec(text);
  if (iso) return isoDay(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const dayFirst = DOTTED_DATE.exec(text) ?? SLASHED_DATE.exec(text);
  if (dayFirst) return isoDay(Number(dayFirst[3]), Number(dayFirst[2]), Number(dayFirst[1]));
  return null;
}

/**
 * A slash date whose second part cannot be a month (03/24/2014): the file was written month
 * first, and its other slash dates would be read wrongly without a word.
 */
export function isMonthFirstDate(cell: string): boolean {
  const slashed = SLASHED_DATE.exec(cell.trim());
  return slashed !== null && Number(slashed[2]) > 12;
}

const TRUE_WORDS = new Set(['true', 'yes', 'ja', 'oui', 'wahr', 'vrai', '1', 'x']);
const FALSE_WORDS = new Set(['false', 'no', 'nein', 'non', 'falsch', 'faux', '0']);

/** A yes/no cell as a boolean (any case), or null when it is none of the accepted words. */
export function parseBooleanCell(cell: string): boolean | null {
  const word = cell.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return null;
}
