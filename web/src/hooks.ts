import { useEffect, useState } from 'preact/hooks';

/** Loads with `load` when `key` changes; `reload()` loads again. null while loading or after a failure. */
export function useLoad<T>(load: () => Promise<T | null>, key: unknown[]): [T | null, () => void] {
  const [value, setValue] = useState<T | null>(null);
  const [round, setRound] = useState(0);
  // Another thing to show (not a reload of the same): forget the old one at once.
  useEffect(() => setValue(null), key);
  useEffect(() => {
    let current = true;
    void load().then((loaded) => {
      if (current) setValue(loaded);
    });
    return () => {
      current = false;
    };
  }, [...key, round]);
  return [value, () => setRound((r) => r + 1)];
}
