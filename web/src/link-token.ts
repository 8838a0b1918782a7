/** A link from a mail: `/#reset=<token>` or `/#invitation=<token>`. */
export type LinkToken = { kind: 'reset' | 'invitation'; token: string };

const LINK = /^#(reset|invitation)=(.*)$/s;

/**
 * Takes the token of a mail's link out of the address before the app makes any request: the
 * address bar, the history and any later page's referrer never show it again. Run once, before
 * the app starts. A damaged token (cut off by a mail program) still opens its page, where the
 * API says why it is refused.
 */
export function takeLinkToken(where: Pick<Location, 'hash' | 'pathname' | 'search'> = location, history: Pick<History, 'replaceState'> = window.history): LinkToken | null {
  const match = LINK.exec(where.hash);
  if (!match) return null;
  history.replaceState(null, '', `${where.pathname}${where.search}`);
  return { kind: match[1] as LinkToken['kind'], token: match[2]!.slice(0, 200) };
}
