import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { keepReads } from '../../src/lib/kept-reads.js';

/** A read whose answers the test gives by hand, counting the calls. */
function manualRead() {
  const pending: { key: string; resolve: (value: string) => void; reject: (error: Error) => void }[] = [];
  const read = vi.fn(
    (key: string) =>
      new Promise<string>((resolve, reject) => {
        pending.push({ key, resolve, reject });
      }),
  );
  return { read, pending };
}

describe('kept reads', () => {
  it('shares one read among callers at once and keeps its answer for the time given', async () => {
    const { read, pending } = manualRead();
    const kept = keepReads(read, 1000);
    const first = kept.get('demo');
    const second = kept.get('demo');
    expect(read).toHaveBeenCalledTimes(1);
    pending[0]!.resolve('Europe/Zurich');
    expect(await Promise.all([first, second])).toEqual(['Europe/Zurich', 'Europe/Zurich']);
    expect(await kept.get('demo')).toBe('Europe/Zurich');
    expect(read).toHaveBeenCalledTimes(1);
    // The cache measures real time (lru-cache reads performance.now itself): a short real wait.
    await sleep(1100);
    const later = kept.get('demo');
    expect(read).toHaveBeenCalledTimes(2);
    pending[1]!.resolve('Europe/Berlin');
    expect(await later).toBe('Europe/Berlin');
  });

  it('keeps each key apart', async () => {
    const { read, pending } = manualRead();
    const kept = keepReads(read, 1000);
    const demo = kept.get('demo');
    const other = kept.get('other');
    expect(pending.map((call) => call.key)).toEqual(['demo', 'other']);
    pending[0]!.resolve('a');
    pending[1]!.resolve('b');
    expect([await demo, await other]).toEqual(['a', 'b']);
  });

  it('drops a failed read at once, so the next caller reads again', async () => {
    const { read, pending } = manualRead();
    const kept = keepReads(read, 1000);
    const failing = kept.get('demo');
    pending[0]!.reject(new Error('the database is away'));
    await expect(failing).rejects.toThrow('the database is away');
    const again = kept.get('demo');
    expect(read).toHaveBeenCalledTimes(2);
    pending[1]!.resolve('UTC');
    expect(await again).toBe('UTC');
  });

  it('reads again after forget, even while a read is under way, and a late failure of the old read drops nothing newer', async () => {
    const { read, pending } = manualRead();
    const kept = keepReads(read, 1000);
    const old = kept.get('demo');
    kept.forget('demo');
    const fresh = kept.get('demo');
    expect(read).toHaveBeenCalledTimes(2);
    pending[1]!.resolve('after the write');
    expect(await fresh).toBe('after the write');
    pending[0]!.reject(new Error('too late'));
    await expect(old).rejects.toThrow('too late');
    expect(await kept.get('demo')).toBe('after the write');
    expect(read).toHaveBeenCalledTimes(2);
  });
});
