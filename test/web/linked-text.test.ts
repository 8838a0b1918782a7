import { isValidElement, type VNode } from 'preact';
import { describe, expect, it } from 'vitest';
import { linkedParts } from '../../src/lib/links.js';
import { LinkedText } from '../../web/src/components/linked-text.js';

/** What Preact would put on the page for `text`: strings, `<br>` and links with their attributes, in order. */
function rendered(text: string): unknown[] {
  const flat = (node: unknown): unknown[] => {
    if (Array.isArray(node)) return node.flatMap(flat);
    if (node === null || node === undefined || node === false || node === '') return [];
    if (typeof node === 'string') return [node];
    if (!isValidElement(node)) throw new Error(`unexpected child: ${String(node)}`);
    const vnode = node as VNode<Record<string, unknown>>;
    if (typeof vnode.type === 'function') return flat((vnode.type as (props: object) => unknown)(vnode.props));
    const { children, ...attributes } = vnode.props;
    if (vnode.type === 'br') return ['<br>'];
    return [{ [vnode.type as string]: attributes, children: flat(children) }];
  };
  return flat(LinkedText({ text }));
}

const link = (href: string) => ({ a: { href, target: '_blank', rel: 'noopener noreferrer' }, children: [href] });

describe('the web app: addresses in a text become links', () => {
  it('links http and https addresses and leaves the rest as text', () => {
    expect(linkedParts('Packliste: https://pfadi.example.ch/lager/packliste.pdf und Karte http://maps.example.org/?q=Zeltplatz&z=14#karte')).toEqual([
      { text: 'Packliste: ' },
      { text: 'https://pfadi.example.ch/lager/packliste.pdf', href: 'https://pfadi.example.ch/lager/packliste.pdf' },
      { text: ' und Karte ' },
      { text: 'http://maps.example.org/?q=Zeltplatz&z=14#karte', href: 'http://maps.example.org/?q=Zeltplatz&z=14#karte' },
    ]);
    expect(linkedParts('HTTPS://EXAMPLE.ORG')).toEqual([{ text: 'HTTPS://EXAMPLE.ORG', href: 'HTTPS://EXAMPLE.ORG' }]);
    expect(linkedParts('Kein Link hier, nur www.example.org und mailto:lea@example.org')).toEqual([{ text: 'Kein Link hier, nur www.example.org und mailto:lea@example.org' }]);
    expect(linkedParts('')).toEqual([]);
  });

  it('leaves the punctuation after an address outside the link', () => {
    const hrefs = (text: string) => linkedParts(text).flatMap((part) => ('href' in part ? [part.href] : []));
    expect(hrefs('Siehe https://example.org/a.')).toEqual(['https://example.org/a']);
    expect(hrefs('Voir https://example.org/a, puis https://example.org/b ; ou https://example.org/c !')).toEqual(['https://example.org/a', 'https://example.org/b', 'https://example.org/c']);
    expect(hrefs('(siehe https://example.org/plan)')).toEqual(['https://example.org/plan']);
    expect(hrefs('«https://example.org/x»?')).toEqual(['https://example.org/x']);
    expect(hrefs('Is it https://example.org/?!')).toEqual(['https://example.org/']);
    // A parenthesis that belongs to the address stays in it.
    expect(hrefs('Mehr: https://de.wikipedia.org/wiki/Pfadi_(Begriff).')).toEqual(['https://de.wikipedia.org/wiki/Pfadi_(Begriff)']);
    expect(linkedParts('Ende: https://example.org/a...')).toEqual([{ text: 'Ende: ' }, { text: 'https://example.org/a', href: 'https://example.org/a' }, { text: '...' }]);
  });

  it('never links anything but http and https, and shows hostile text as written', () => {
    for (const text of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      '<script>alert(1)</script>',
      '<a href="javascript:alert(1)">klick</a>',
      'http://',
      'https://...',
      'vbscript:msgbox(1)',
    ]) {
      expect(linkedParts(text), text).toEqual([{ text }]);
      expect(rendered(text), text).toEqual([text]);
    }
    // The address ends at a quote or an angle bracket: nothing after it reaches an attribute.
    expect(rendered('<a href="https://example.org/"onmouseover="alert(1)">x</a>')).toEqual([
      '<a href="',
      link('https://example.org/'),
      '"onmouseover="alert(1)">x</a>',
    ]);
    expect(rendered("https://example.org/'><script>alert(1)</script>")).toEqual([link('https://example.org/'), "'><script>alert(1)</script>"]);
    expect(rendered('https://example.org/<img src=x onerror=alert(1)>')).toEqual([link('https://example.org/'), '<img src=x onerror=alert(1)>']);
    // "javascript:" inside an http address is only a path.
    expect(linkedParts('https://example.org/javascript:alert(1)')).toEqual([{ text: 'https://example.org/javascript:alert(1)', href: 'https://example.org/javascript:alert(1)' }]);
  });

  it('builds links and line breaks as elements, never as HTML', () => {
    expect(rendered('Treffpunkt 9 Uhr\nInfos: https://example.org/lager\r\n\nBis bald!')).toEqual([
      'Treffpunkt 9 Uhr',
      '<br>',
      'Infos: ',
      link('https://example.org/lager'),
      '',
      '<br>',
      '',
      '<br>',
      'Bis bald!',
    ].filter((piece) => piece !== ''));
    const json = JSON.stringify(rendered('<b>fett</b> https://example.org'));
    expect(json).not.toContain('dangerouslySetInnerHTML');
    expect(rendered('<b>fett</b> https://example.org')).toEqual(['<b>fett</b> ', link('https://example.org')]);
  });
});
