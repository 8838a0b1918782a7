import { Fragment, h, type ComponentChildren } from 'preact';

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

/** Text with its line breaks kept. */
const lines = (text: string): ComponentChildren[] => text.split(/\r\n|\r|\n/).flatMap((line, index) => (index === 0 ? [line] : [h('br', null), line]));

/**
 * A person's text (an event's description) with its web addresses as links that open in a new
 * tab, and its line breaks. Built as text nodes and elements, never as HTML: whatever the text
 * holds is shown as written. (Written without JSX: the unit tests load it outside the web build.)
 */
export function LinkedText({ text }: { text: string }) {
  return h(
    Fragment,
    null,
    linkedParts(text).map((part, index) =>
      'href' in part ? h('a', { key: index, href: part.href, target: '_blank', rel: 'noopener noreferrer' }, part.text) : h(Fragment, { key: index }, lines(part.text)),
    ),
  );
}
