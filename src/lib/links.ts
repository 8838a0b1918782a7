// Web addresses in a person's text (an event's description, a leader's message), found by one rule
// for the web app and the mails alike: plain pieces and http(s) addresses, never anything else.

/** A piece of a text: plain words, or an address to link. */
export type TextPart = { text: string } | { text: string; href: string };

/** Web addresses in running text: up to a space, a quote or an angle bracket (none of them belongs to an address). */
const ADDRESS = /\bhttps?:\/\/[^\s<>"'`]+/gi;
/** Punctuation that ends a sentence rather than an address ("see https://example.org.") */
const TRAILING = /[.,;:!?'’"»)\]]+$/;

/** The address without the punctuation after it; a closing parenthesis stays when it closes one in the address. */
function trimmed(candidate: string): string {
  let address = candidate;
  for (let trailing = TRAILING.exec(address); trailing; trailing = TRAILING.exec(address)) {
    let end = address.length - trailing[0].length;
    // Keep ")" that closes an opened "(" (https://de.wikipedia.org/wiki/Pfadi_(Begriff)).
    while (end < address.length && address[end] === ')' && count(address.slice(0, end), '(') > count(address.slice(0, end), ')')) end += 1;
    if (end === address.length) break;
    address = address.slice(0, end);
  }
  return address;
}

const count = (text: string, character: string): number => text.split(character).length - 1;

/** Whether the browser reads `address` as a web address of its own (http or https, with a host). */
function isWebAddress(address: string): boolean {
  try {
    const url = new URL(address);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Splits a text into plain pieces and the http(s) addresses in it; everything else stays text. */
export function linkedParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let from = 0;
  for (const match of text.matchAll(ADDRESS)) {
    const address = trimmed(match[0]);
    if (!isWebAddress(address)) continue;
    if (match.index > from) parts.push({ text: text.slice(from, match.index) });
    parts.push({ text: address, href: address });
    from = match.index + address.length;
  }
  if (from < text.length) parts.push({ text: text.slice(from) });
  return parts;
}
