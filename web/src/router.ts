import { useEffect, useState } from 'preact/hooks';

/**
 * Navigation inside the one page: `#/groups/5` and the like. Changing the hash never loads a page,
 * so the token (kept in memory only) survives every step.
 */
export function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [parts, setParts] = useState(read);
  useEffect(() => {
    const changed = () => setParts(read());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return parts;
}

export const go = (path: string) => {
  location.hash = `#${path}`;
};
