import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatNumber, generalNumber, numberFormatOf, serialToDay } from '../../../src/modules/people-import/number-format.js';

const shown = (value: number, code: string) => formatNumber(value, numberFormatOf(200, new Map([[200, code]])));

describe('numeric XLSX cells as their format shows them', () => {
  it('gives General as the shortest decimal, never .0 or an exponent', () => {
    expect(generalNumber(8001)).toBe('8001');
    expect(generalNumber(41791234567)).toBe('41791234567');
    expect(generalNumber(12.5)).toBe('12.5');
    expect(generalNumber(1e21)).toBe('1000000000000000000000');
    expect(generalNumber(1.5e-7)).toBe('0.00000015');
    expect(generalNumber(-2.5e22)).toBe('-25000000000000000000000');
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = generalNumber(value);
        expect(text).not.toMatch(/e|\.0*$/i);
        expect(Number(text)).toBe(value === 0 ? 0 : value);
      }),
    );
  });

  it('pads, rounds, groups and decorates as the format says, and invents no zero', () => {
    expect(shown(8001, '00000')).toBe('08001');
    expect(shown(123456, '00000')).toBe('123456');
    expect(shown(3.14159, '0.00')).toBe('3.14');
    expect(shown(3.5, '0.##')).toBe('3.5');
    expect(shown(1234567, '#,##0')).toBe('1,234,567');
    expect(shown(0.25, '0%')).toBe('25%');
    expect(shown(8001, '"CH-"0000')).toBe('CH-8001');
    expect(shown(-5, '0')).toBe('-5');
    expect(shown(12, '@')).toBe('12');
    expect(shown(1234.5, '0.00E+00')).toBe('1234.5');
    expect(formatNumber(8001, numberFormatOf(0, new Map()))).toBe('8001');
    expect(formatNumber(8001.25, numberFormatOf(2, new Map()))).toBe('8001.25');
  });

  it('tells date formats apart, and reads serials of both date systems as days', () => {
    expect(numberFormatOf(14, new Map()).isDate).toBe(true);
    for (const code of ['dd.mm.yyyy', 'yyyy-mm-dd', 'd/m/yy', '[$-407]dd. mmmm yyyy']) expect(numberFormatOf(200, new Map([[200, code]])).isDate, code).toBe(true);
    for (const code of ['00000', '"Nr. "0', '#,##0', 'General', '[Red]0.00']) expect(numberFormatOf(200, new Map([[200, code]])).isDate, code).toBe(false);
    expect(serialToDay(41702, false)).toBe('2014-03-04');
    expect(serialToDay(40240, true)).toBe('2014-03-04');
    expect(serialToDay(41702.75, false)).toBe('2014-03-04');
    expect(serialToDay(1, false)).toBe('1900-01-01');
    expect(serialToDay(61, false)).toBe('1900-03-01');
    expect(serialToDay(0, true)).toBe('1904-01-01');
  });
});
