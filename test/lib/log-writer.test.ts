import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LogWriter } from '../../src/lib/log-writer.js';

const eagain = () => Object.assign(new Error('EAGAIN: resource temporarily unavailable, write'), { code: 'EAGAIN' });

/** A descriptor in memory: takes at most `takes()` bytes a write (0: EAGAIN), keeps each piece. */
function fakeDescriptor(takes: () => number = () => Infinity) {
  const pieces: Buffer[] = [];
  const attempts: number[] = [];
  const writeBytes = (bytes: Buffer) => {
    attempts.push(bytes.length);
    const taken = Math.min(bytes.length, takes());
    if (taken === 0) throw eagain();
    pieces.push(Buffer.from(bytes.subarray(0, taken)));
    return taken;
  };
  return { writeBytes, pieces, attempts, text: () => Buffer.concat(pieces).toString('utf8') };
}

const line = (i: number, padding: number) => `${JSON.stringify({ i, padding: 'é'.repeat(padding) })}\n`;
const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

describe('the log writer', () => {
  it('writes to a pipe in pieces of whole lines of at most 4 KiB, a longer line on its own', () => {
    const descriptor = fakeDescriptor();
    const writer = new LogWriter(descriptor.writeBytes, true);
    let text = '';
    for (let i = 0; text.length < 64 * 1024; i++) text += line(i, 20 + ((i * 37) % 900));
    const long = line(-1, 5_000);
    writer.write(text + long + line(-2, 10));
    expect(writer.idle).toBe(true);
    expect(descriptor.text()).toBe(text + long + line(-2, 10));
    for (const piece of descriptor.pieces) {
      expect(piece.at(-1)).toBe(0x0a);
      if (piece.toString('utf8') !== long) expect(piece.length).toBeLessThanOrEqual(4096);
    }
    expect(descriptor.pieces.some((piece) => piece.toString('utf8') === long)).toBe(true);
  });

  it('loses, repeats and reorders nothing, however the descriptor takes the bytes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 5_000 }), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 2, max: 5 }),
        fc.boolean(),
        (lineCounts, takes, refuseEvery, wholeLines) => {
          let call = 0;
          // While the lines are handed over, every few writes take nothing (EAGAIN); the rest
          // take a few bytes or a few thousand. (The final flush then waits on nothing.)
          let handingOver = true;
          const descriptor = fakeDescriptor(() => {
            call++;
            return handingOver && call % refuseEvery === 0 ? 0 : takes[call % takes.length]!;
          });
          const writer = new LogWriter(descriptor.writeBytes, wholeLines);
          let expected = '';
          lineCounts.forEach((count, batch) => {
            let text = '';
            for (let i = 0; i < count; i++) text += line(batch * 100 + i, (batch * 7 + i * 13) % 200);
            expected += text;
            writer.write(text);
          });
          handingOver = false;
          writer.flushSync({ withoutProgressMs: 1_000, totalMs: 10_000 });
          expect(writer.idle).toBe(true);
          expect(descriptor.text()).toBe(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('writes what it holds with the next hand-over once the reader has caught up, without waiting for its timer', () => {
    let open = false;
    const descriptor = fakeDescriptor(() => (open ? Infinity : 0));
    const writer = new LogWriter(descriptor.writeBytes);
    writer.write(line(1, 10));
    expect(writer.idle).toBe(false);
    open = true;
    writer.write(line(2, 10));
    expect(writer.idle).toBe(true);
    expect(descriptor.text()).toBe(line(1, 10) + line(2, 10));
  });

  it('tries again by itself while it holds lines, and calls back once all is written', async () => {
    let open = false;
    const descriptor = fakeDescriptor(() => (open ? Infinity : 0));
    const writer = new LogWriter(descriptor.writeBytes);
    writer.write(line(1, 10));
    let flushed = 0;
    writer.flush(() => flushed++);
    await settle();
    expect(flushed).toBe(0);
    open = true;
    await settle();
    expect(descriptor.text()).toBe(line(1, 10));
    expect(flushed).toBe(1);
  });

  it('holds at most 32 MiB for a reader that stopped, and says how many lines it dropped', async () => {
    let open = false;
    const descriptor = fakeDescriptor(() => (open ? Infinity : 0));
    const writer = new LogWriter(descriptor.writeBytes);
    const batch = Array.from({ length: 256 }, (_, i) => line(i, 200)).join('');
    const batches = Math.ceil((40 * 1024 * 1024) / batch.length);
    for (let i = 0; i < batches; i++) writer.write(batch);
    open = true;
    writer.flushSync();
    await settle();
    const lines = descriptor.text().trim().split('\n');
    const kept = Math.floor((32 * 1024 * 1024) / Buffer.byteLength(batch));
    expect(lines).toHaveLength(kept * 256 + 1);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ level: 40, droppedLines: (batches - kept) * 256 });
  });

  it('gives up a flushSync on a reader that takes nothing, and goes on trying afterwards', async () => {
    let open = false;
    const descriptor = fakeDescriptor(() => (open ? Infinity : 0));
    const writer = new LogWriter(descriptor.writeBytes);
    writer.write(line(1, 10));
    writer.flushSync({ withoutProgressMs: 20, totalMs: 1_000 });
    expect(writer.idle).toBe(false);
    open = true;
    await settle();
    expect(descriptor.text()).toBe(line(1, 10));
  });

  it('drops what it holds when the reader is gone, and calls back', async () => {
    const writer = new LogWriter(() => {
      throw Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE' });
    });
    expect(() => writer.write(line(1, 10))).not.toThrow();
    let flushed = 0;
    writer.flush(() => flushed++);
    await settle();
    expect(flushed).toBe(1);
    expect(() => writer.flushSync()).not.toThrow();
  });
});
