import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { Cell } from '../../src/lib/csv.js';
import { xlsxStream, type SheetColumn } from '../../src/lib/xlsx.js';

const bytes = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const sheetOf = async (stream: Readable): Promise<ExcelJS.Worksheet> => {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load((await bytes(stream)) as unknown as ArrayBuffer);
  return workbook.worksheets[0]!;
};
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function* listed(rows: Cell[][]): AsyncGenerator<Cell[]> {
  yield* rows;
}

const COLUMNS: SheetColumn[] = [
  { name: 'id', kind: 'number' },
  { name: 'name', kind: 'text' },
  { name: 'flag', kind: 'boolean' },
  { name: 'birthday', kind: 'day' },
  { name: 'created_at', kind: 'moment' },
];

/** The streamed XLSX of the members and participant lists (lib/xlsx.ts). */
describe('xlsxStream', () => {
  it('writes a bold, frozen header row and each cell as its column says: numbers, booleans, dates, text', async () => {
    const sheet = await sheetOf(
      await xlsxStream('People', COLUMNS, listed([[7, 'Mia', true, '2014-03-04', '2026-11-21T09:30:05.123000Z'], [8, null, false, null, null]])),
    );
    expect(sheet.name).toBe('People');
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(['id', 'name', 'flag', 'birthday', 'created_at']);
    sheet.getRow(1).eachCell((cell) => expect(cell.font?.bold).toBe(true));
    const [id, name, flag, birthday, created] = [1, 2, 3, 4, 5].map((column) => sheet.getRow(2).getCell(column));
    expect([id!.type, id!.value]).toEqual([ExcelJS.ValueType.Number, 7]);
    expect([name!.type, name!.value]).toEqual([ExcelJS.ValueType.String, 'Mia']);
    expect([flag!.type, flag!.value]).toEqual([ExcelJS.ValueType.Boolean, true]);
    expect([birthday!.type, birthday!.value, birthday!.numFmt]).toEqual([ExcelJS.ValueType.Date, new Date('2014-03-04T00:00:00Z'), 'yyyy-mm-dd']);
    expect(created!.type).toBe(ExcelJS.ValueType.Date);
    expect((created!.value as Date).getTime()).toBeCloseTo(Date.parse('2026-11-21T09:30:05.123Z'), -1);
    expect(created!.font?.bold).toBeFalsy();
    // null is an empty cell; false stays a boolean.
    expect(sheet.getRow(3).getCell(2).type).toBe(ExcelJS.ValueType.Null);
    expect([sheet.getRow(3).getCell(3).type, sheet.getRow(3).getCell(3).value]).toEqual([ExcelJS.ValueType.Boolean, false]);
    expect(sheet.getRow(3).getCell(4).type).toBe(ExcelJS.ValueType.Null);
    expect(sheet.rowCount).toBe(3);
  });

  it('writes text as string cells exactly as given: never a formula, no leading quote', async () => {
    const risky = ['=SUM(A1:A2)', '+41 31 123 45 67', '-1', '@cmd', '\tx', "'=already", '0042'];
    const sheet = await sheetOf(await xlsxStream('Text', [{ name: 'text', kind: 'text' }], listed(risky.map((text) => [text]))));
    const cells = risky.map((_, index) => sheet.getRow(index + 2).getCell(1));
    expect(cells.map((cell) => cell.type)).toEqual(risky.map(() => ExcelJS.ValueType.String));
    expect(cells.map((cell) => cell.formula)).toEqual(risky.map(() => undefined));
    expect(cells.map((cell) => cell.value)).toEqual(risky);
  });

  it('writes characters XML cannot hold as U+FFFD, so that a name typed with one never damages the workbook', async () => {
    const typed = ['Kim\uFFFF', 'Lea\uFFFE', 'Mo\uD800', 'Ida 🏕️', 'Zoë\u0007'];
    const sheet = await sheetOf(await xlsxStream('Names', [{ name: 'name\uFFFF', kind: 'text' }], listed(typed.map((name) => [name]))));
    expect(sheet.getRow(1).getCell(1).value).toBe('name\uFFFD');
    expect(typed.map((_, index) => sheet.getRow(index + 2).getCell(1).value)).toEqual(['Kim\uFFFD', 'Lea\uFFFD', 'Mo\uFFFD', 'Ida 🏕️', 'Zoë\uFFFD']);
  });

  it('keeps a value that does not fit its column as text', async () => {
    const sheet = await sheetOf(await xlsxStream('Odd', COLUMNS, listed([['7', 8, 'yes', '4.3.2014', 'not a moment']])));
    const cells = [1, 2, 3, 4, 5].map((column) => sheet.getRow(2).getCell(column));
    expect(cells.map((cell) => cell.type)).toEqual(cells.map(() => ExcelJS.ValueType.String));
    expect(cells.map((cell) => cell.value)).toEqual(['7', '8', 'yes', '4.3.2014', 'not a moment']);
  });

  it('answers an error of the first row as a rejection, and keeps a later one on the stream for its reader', async () => {
    async function* failsFirst(): AsyncGenerator<Cell[]> {
      throw new Error('storage fault on the first page');
    }
    await expect(xlsxStream('X', COLUMNS, failsFirst())).rejects.toThrow('storage fault on the first page');
    async function* failsLater(): AsyncGenerator<Cell[]> {
      yield [1, 'a', true, null, null];
      await wait(1);
      throw new Error('storage fault on the second page');
    }
    const stream = await xlsxStream('X', COLUMNS, failsLater());
    // Nobody reads for a while: the error must not be thrown where nobody listens.
    await wait(20);
    await expect(bytes(stream)).rejects.toThrow('storage fault on the second page');
  });

  it('streams many rows, and reads no further ahead than the reader takes; stops reading rows when the reader goes', async () => {
    let pulled = 0;
    let finished = false;
    async function* endless(): AsyncGenerator<Cell[]> {
      try {
        for (;;) {
          pulled++;
          yield [pulled, `Person number ${pulled} with a longer name ${Math.random()}`, pulled % 2 === 0, '2014-03-04', null];
          if (pulled % 500 === 0) await wait(0);
        }
      } finally {
        finished = true;
      }
    }
    const stream = await xlsxStream('Endless', COLUMNS, endless());
    // Nobody reads: the writer comes to a stop (however busy the machine, within seconds) ...
    let stalled = -1;
    for (let tries = 0; tries < 50 && pulled !== stalled; tries++) {
      stalled = pulled;
      await wait(300);
    }
    // ... and stays there, holding a bounded number of rows.
    await wait(300);
    expect(pulled).toBe(stalled);
    expect(stalled).toBeLessThan(10_000);
    // A reader takes some, and the writer goes on.
    let taken = 0;
    for await (const chunk of stream) {
      taken += (chunk as Buffer).length;
      if (taken > 2_000_000) break;
    }
    expect(pulled).toBeGreaterThan(stalled);
    await wait(50);
    expect(finished).toBe(true);
  });

  it('writes a long list whole', async () => {
    const rows = Array.from({ length: 5000 }, (_, index): Cell[] => [index, `Name ${index}`, index % 2 === 0, null, null]);
    const sheet = await sheetOf(await xlsxStream('Long', COLUMNS, listed(rows)));
    expect(sheet.rowCount).toBe(5001);
    expect(sheet.getRow(5001).getCell(2).value).toBe('Name 4999');
  });
});
