import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { csvStream, type Cell } from '../../src/lib/csv.js';

const text = async (stream: Readable): Promise<string> => {
  let all = '';
  for await (const chunk of stream) all += String(chunk);
  return all;
};
const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** The streamed CSV of the people and participant lists (lib/csv.ts). */
describe('csvStream', () => {
  it('writes the header and the rows, CRLF, a formula neutralised', async () => {
    async function* rows(): AsyncGenerator<Cell[]> {
      yield [1, '=SUM(A1)', true];
      yield [2, null, false];
    }
    expect(await text(await csvStream(['id', 'name', 'flag'], rows()))).toBe("id,name,flag\r\n1,'=SUM(A1),true\r\n2,,false\r\n");
  });

  it('answers an error of the first row as a rejection, before any stream exists', async () => {
    async function* rows(): AsyncGenerator<Cell[]> {
      throw new Error('storage fault on the first page');
    }
    await expect(csvStream(['id'], rows())).rejects.toThrow('storage fault on the first page');
  });

  it('keeps a later error on the stream for its reader, even when nobody reads for a while (no uncaught error)', async () => {
    async function* rows(): AsyncGenerator<Cell[]> {
      yield [1];
      throw new Error('storage fault on the second page');
    }
    const stream = await csvStream(['id'], rows());
    // The answer is taken a turn later (batched answers): the error happens before anyone listens.
    await turns(5);
    expect(stream.destroyed).toBe(true);
    await expect(text(stream)).rejects.toThrow('storage fault on the second page');
  });
});
