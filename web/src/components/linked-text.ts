import { Fragment, h, type ComponentChildren } from 'preact';
import { linkedParts } from '../../../src/lib/links.js';

/** Text with its line breaks kept. */
const lines = (text: string): ComponentChildren[] => text.split(/\r\n|\r|\n/).flatMap((line, index) => (index === 0 ? [line] : [h('br', null), line]));

/**
 * A person's text (an event's description, a message) with its web addresses as links that open in a new
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
