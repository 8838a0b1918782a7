import { describe, expect, it } from 'vitest';
import { takeLinkToken } from '../../web/src/link-token.js';

/** The address of a page and a history that records what replaced it. */
function at(hash: string) {
  const replaced: string[] = [];
  return { where: { hash, pathname: '/', search: '' }, history: { replaceState: (_: unknown, __: string, url?: string | URL | null) => void replaced.push(String(url)) }, replaced };
}

describe('the web app: a link from a mail', () => {
  it('takes the token of a reset or an invitation out of the address', () => {
    const token = 'A'.repeat(40) + '-_z';
    for (const kind of ['reset', 'invitation'] as const) {
      const page = at(`#${kind}=${token}`);
      expect(takeLinkToken(page.where, page.history)).toEqual({ kind, token });
      expect(page.replaced).toEqual(['/']);
    }
  });

  it('removes a damaged link too, and leaves every other address alone', () => {
    const damaged = at('#reset=abc%20def');
    expect(takeLinkToken(damaged.where, damaged.history)).toEqual({ kind: 'reset', token: 'abc%20def' });
    expect(damaged.replaced).toEqual(['/']);
    for (const hash of ['', '#/groups/5', '#/reset=x', '#resetx=1', '#invitations=2']) {
      const page = at(hash);
      expect(takeLinkToken(page.where, page.history)).toBeNull();
      expect(page.replaced).toEqual([]);
    }
  });
});
