import { describe, expect, it } from 'vitest';
import { elide } from '../../../src/lib/french.js';
import { renderMail } from '../../../src/modules/mail/layout.js';

describe('French in mails', () => {
  it('elides "de", "que" and "le" before a vowel, a mute h and a "y" sounded as a vowel, with ’', () => {
    expect(elide('de', 'Anna')).toBe('d’Anna');
    expect(elide('de', 'Émile')).toBe('d’Émile');
    expect(elide('de', 'Hélène')).toBe('d’Hélène');
    expect(elide('de', 'Yves')).toBe('d’Yves');
    expect(elide('que', 'Ola Berg')).toBe('qu’Ola Berg');
    expect(elide('le', 'Atelier')).toBe('l’Atelier');
    expect(elide('de', 'Óscar')).toBe('d’Óscar');
    expect(elide('de', 'Åsa')).toBe('d’Åsa');
    expect(elide('de', 'Øystein')).toBe('d’Øystein');
    expect(elide('de', 'Mia')).toBe('de Mia');
    expect(elide('de', 'Yann')).toBe('de Yann');
    expect(elide('que', 'Lena Berg')).toBe('que Lena Berg');
  });

  it('sets a space before the colon after the button label in French plain text only', () => {
    const content = { tenantName: 'Pfadi', heading: 'H', body: 'B', button: { label: 'Ouvrir l’activité', url: 'https://demo.example.org/#/events/1' }, footer: 'F' };
    expect(renderMail({ ...content, locale: 'fr' }).text).toContain('Ouvrir l’activité :\nhttps://demo.example.org/#/events/1\n');
    expect(renderMail({ ...content, locale: 'en', button: { ...content.button, label: 'Open the event' } }).text).toContain('Open the event:\nhttps://');
  });
});

describe('links in a mail', () => {
  it('links bare http(s) addresses by the rule of the web app: brackets that belong to the address stay in it, sentence marks stay out', () => {
    const body = 'Lies https://de.wikipedia.org/wiki/Pfadi_(Begriff). (Anmeldung: https://example.org/lager) Nicht: javascript:alert(1) <b>';
    const { html } = renderMail({ locale: 'de', tenantName: 'Pfadi', heading: 'H', body, footer: 'F' });
    expect(html).toContain('<a href="https://de.wikipedia.org/wiki/Pfadi_(Begriff)" style="color:#1d4ed8">https://de.wikipedia.org/wiki/Pfadi_(Begriff)</a>.');
    expect(html).toContain('<a href="https://example.org/lager" style="color:#1d4ed8">https://example.org/lager</a>)');
    expect(html).toContain('javascript:alert(1) &lt;b&gt;');
    expect(html.match(/<a /g)).toHaveLength(2);
  });
});
