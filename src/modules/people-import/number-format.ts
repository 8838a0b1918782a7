/**
 * A numeric XLSX cell as the text its number format shows, for the formats member lists use:
 * General, zero-padded whole numbers (`00000` for postcodes), fixed decimals, thousands
 * separators, percentages and literal text around them (`"CH-"0000`). Any other format (fractions,
 * exponents) shows as General. Dates are told apart by their format and read as days.
 */

/** Excel's built-in number formats (ECMA-376 part 1, 18.8.30) that are not dates. */
const BUILT_IN: Record<number, string> = {
  0: 'General', 1: '0', 2: '0.00', 3: '#,##0', 4: '#,##0.00', 9: '0%', 10: '0.00%', 11: '0.00E+00', 12: '# ?/?', 13: '# ??/??',
  37: '#,##0 ;(#,##0)', 38: '#,##0 ;[Red](#,##0)', 39: '#,##0.00;(#,##0.00)', 40: '#,##0.00;[Red](#,##0.00)', 48: '##0.0E+0', 49: '@',
};
/** The built-in formats that show dates and times. */
const BUILT_IN_DATES = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

export interface NumberFormat {
  code: string;
  isDate: boolean;
}

/** Quoted text, escaped characters and [colour]/[condition] brackets: what a format shows literally or applies. */
const LITERALS = /"[^"]*"|\\.|_.|\*.|\[[^\]]*\]/g;

export function numberFormatOf(id: number, custom: ReadonlyMap<number, string>): NumberFormat {
  const code = custom.get(id) ?? BUILT_IN[id] ?? 'General';
  if (BUILT_IN_DATES.has(id) && !custom.has(id)) return { code, isDate: true };
  const section = firstSection(code);
  // Elapsed time ([h]) is a duration, not a day; any other d, m, y, h or s outside quotes makes a date.
  const isDate = !/General/i.test(section) && /[dmyhs]/i.test(section.replace(LITERALS, ''));
  return { code, isDate };
}

function firstSection(code: string): string {
  let quoted = false;
  for (let i = 0; i < code.length; i += 1) {
    const char = code[i];
    if (char === '\\') i += 1;
    else if (char === '"') quoted = !quoted;
    else if (char === ';' && !quoted) return code.slice(0, i);
  }
  return code;
}

/** Days since 1899-12-30 (the 1900 system, past its phantom 29 February 1900) or 1904-01-01, as `YYYY-MM-DD`. */
export function serialToDay(serial: number, date1904: boolean): string | null {
  if (!Number.isFinite(serial) || serial < 0 || serial >= 2_958_466) return null;
  const days = Math.floor(serial);
  // 1900 system: serial 1 is 1900-01-01, and 60 is the 29 February 1900 Lotus 1-2-3 believed in.
  // That day does not exist: it stays as Excel shows it, and fails as a date.
  if (!date1904 && days === 60) return '1900-02-29';
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : days < 60 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  return new Date(epoch + days * 86_400_000).toISOString().slice(0, 10);
}

/** The shortest decimal that reads back as `value`, never with an exponent (`1e21` is 1000000000000000000000). */
export function generalNumber(value: number): string {
  const text = String(value);
  const exponent = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exponent) return text;
  const [, sign, lead, fraction = '', power] = exponent;
  const digits = `${lead}${fraction}`;
  const point = 1 + Number(power);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A number as `format` shows it. */
export function formatNumber(value: number, format: NumberFormat): string {
  const section = firstSection(format.code);
  const match = /^((?:"[^"]*"|\\.|[^0#?.,%"\\])*)([0#?,]*(?:\.[0#?]*)?)(%?)((?:"[^"]*"|\\.|[^0#?"\\])*)$/.exec(section.replace(/\[[^\]]*\]|_.|\*./g, ''));
  if (!match || /General|@/i.test(section) || !/[0#?]/.test(match[2] ?? '')) return generalNumber(value);
  const [, prefix = '', pattern = '', percent, suffix = ''] = match;
  const [whole = '', decimals = ''] = pattern.split('.');
  const scaled = percent ? value * 100 : value;
  const maxDecimals = decimals.length;
  const minDecimals = decimals.replace(/[#?]/g, '').length;
  let [integer = '0', fraction = ''] = Math.abs(scaled).toFixed(maxDecimals).split('.');
  while (fraction.length > minDecimals && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  const minDigits = whole.replace(/[^0]/g, '').length;
  integer = integer.replace(/^0+(?=\d)/, '');
  if (integer === '0' && minDigits === 0) integer = '';
  integer = integer.padStart(minDigits, '0');
  if (whole.includes(',')) integer = integer.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const number = `${integer}${fraction === '' ? '' : `.${fraction}`}` || '0';
  const literal = (text: string) => text.replace(/"([^"]*)"|\\(.)/g, '$1$2');
  const negative = scaled < 0 && /[1-9]/.test(number);
  return `${negative ? '-' : ''}${literal(prefix)}${number}${percent}${literal(suffix)}`;
}
