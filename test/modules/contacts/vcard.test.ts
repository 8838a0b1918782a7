import { describe, expect, it } from 'vitest';
import { escapeText, foldLine, vcardForGuardian, vcardForPerson, vcardsOf, vcardUid, type VcardGuardian, type VcardPerson } from '../../../src/modules/contacts/vcard.js';
import { URL_NAMESPACE, uuidV5 } from '../../../src/modules/contacts/uuid.js';
import { checkLines, parseCards, props, value } from './parse.js';

const person = (fields: Partial<VcardPerson> = {}): VcardPerson => ({
  id: 7,
  firstname: 'Mia',
  lastname: 'Muster',
  email: 'mia@example.org',
  phonenumber: '+41 44 123 45 67',
  phonenumber_mobile: '+41 79 765 43 21',
  street: 'Bahnhofstrasse',
  housenumber: '12a',
  zip: '8001',
  city: 'Zürich',
  birthday: '2015-04-03',
  guardian_ids: [],
  ...fields,
});

describe('UUIDv5', () => {
  it('matches the RFC 4122 algorithm (known vectors)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(uuidV5('demo:1', URL_NAMESPACE)).toBe('da95c45c-accc-566a-958c-8acc7577bd12');
    expect(uuidV5('https://example.org/ä')).toBe('a3dbf7e0-ef27-5dc9-ad48-bf7f82055d84');
  });

  it('gives a card UID that is stable per tenant and person, and differs between them', () => {
    expect(vcardUid('demo', 1)).toBe('urn:uuid:da95c45c-accc-566a-958c-8acc7577bd12');
    expect(vcardUid('demo', 1)).toBe(vcardUid('demo', 1));
    expect(vcardUid('demo', 2)).not.toBe(vcardUid('demo', 1));
    expect(vcardUid('other', 1)).not.toBe(vcardUid('demo', 1));
    expect(vcardUid('demo', 1)).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('a person\'s vCard', () => {
  it('writes the lines in order, each as vCard 4.0 says, and ical.js reads back every value', () => {
    const text = vcardForPerson(person({ guardian_ids: [3, 4] }), 'demo');
    checkLines(text);
    expect(text.split('\r\n').slice(0, -1)).toEqual([
      'BEGIN:VCARD',
      'VERSION:4.0',
      'FN:Mia Muster',
      'N:Muster;Mia;;;',
      'EMAIL:mia@example.org',
      'TEL;TYPE=home;VALUE=text:+41 44 123 45 67',
      'TEL;TYPE=cell;VALUE=text:+41 79 765 43 21',
      'ADR;TYPE=home:;;Bahnhofstrasse 12a;Zürich;;8001;',
      'BDAY:20150403',
      `UID:${vcardUid('demo', 7)}`,
      `RELATED;TYPE=parent:${vcardUid('demo', 3)}`,
      `RELATED;TYPE=parent:${vcardUid('demo', 4)}`,
      'END:VCARD',
    ]);
    const [card] = parseCards(text);
    expect(value(card!, 'version')).toBe('4.0');
    expect(value(card!, 'fn')).toBe('Mia Muster');
    expect(value(card!, 'n')).toEqual(['Muster', 'Mia', '', '', '']);
    expect(value(card!, 'email')).toBe('mia@example.org');
    expect(props(card!, 'tel')).toEqual([
      { params: { type: 'home' }, type: 'text', values: ['+41 44 123 45 67'] },
      { params: { type: 'cell' }, type: 'text', values: ['+41 79 765 43 21'] },
    ]);
    expect(props(card!, 'adr')).toEqual([{ params: { type: 'home' }, type: 'text', values: [['', '', 'Bahnhofstrasse 12a', 'Zürich', '', '8001', '']] }]);
    expect(value(card!, 'bday')).toBe('2015-04-03');
    expect(value(card!, 'uid')).toBe(vcardUid('demo', 7));
    expect(props(card!, 'related').map((prop) => [prop.params, prop.type, prop.values[0]])).toEqual([
      [{ type: 'parent' }, 'uri', vcardUid('demo', 3)],
      [{ type: 'parent' }, 'uri', vcardUid('demo', 4)],
    ]);
    expect(props(card!, 'uid')[0]!.type).toBe('text');
  });

  it('leaves out what the person does not have', () => {
    const text = vcardForPerson(person({ email: null, phonenumber: null, phonenumber_mobile: '  ', street: null, housenumber: null, zip: null, city: null, birthday: null }), 'demo');
    expect(text).toBe(['BEGIN:VCARD', 'VERSION:4.0', 'FN:Mia Muster', 'N:Muster;Mia;;;', `UID:${vcardUid('demo', 7)}`, 'END:VCARD', ''].join('\r\n'));
    // A partial address keeps its places.
    expect(vcardForPerson(person({ street: null, housenumber: null, zip: null }), 'demo')).toContain('\r\nADR;TYPE=home:;;;Zürich;;;\r\n');
  });

  it('escapes backslashes, commas, semicolons and line breaks in every text value, and ical.js reads them back', () => {
    const tricky = person({
      firstname: 'Anna; Maria',
      lastname: 'Müller, Jr.\\Sr.',
      email: 'a,b@example.org',
      phonenumber: '044;1',
      street: 'Weg\r\nHinterhaus',
      housenumber: '1,2',
      city: 'St. Gallen; Ost',
    });
    const text = vcardForPerson(tricky, 'demo');
    expect(text).toContain('\r\nFN:Anna; Maria Müller\\, Jr.\\\\Sr.\r\n');
    expect(text).toContain('\r\nN:Müller\\, Jr.\\\\Sr.;Anna\\; Maria;;;\r\n');
    expect(text).toContain('\r\nADR;TYPE=home:;;Weg\\nHinterhaus 1\\,2;St. Gallen\\; Ost;;8001;\r\n');
    checkLines(text);
    const [card] = parseCards(text);
    expect(value(card!, 'fn')).toBe('Anna; Maria Müller, Jr.\\Sr.');
    expect(value(card!, 'n')).toEqual(['Müller, Jr.\\Sr.', 'Anna; Maria', '', '', '']);
    expect(value(card!, 'email')).toBe('a,b@example.org');
    expect(value(card!, 'tel')).toBe('044;1');
    expect(value(card!, 'adr')).toEqual(['', '', 'Weg\nHinterhaus 1,2', 'St. Gallen; Ost', '', '8001', '']);
    expect(escapeText('a\\b,c;d\ne\rf')).toBe('a\\\\b\\,c;d\\ne\\nf');
    expect(escapeText('a\\b,c;d\ne\rf', true)).toBe('a\\\\b\\,c\\;d\\ne\\nf');
  });

  it('folds long lines at 75 octets without splitting a UTF-8 character, and ical.js unfolds them', () => {
    const long = 'Ä'.repeat(60) + '😀'.repeat(20) + 'x'.repeat(100);
    const text = vcardForPerson(person({ firstname: long, lastname: 'Ö'.repeat(50) }), 'demo');
    checkLines(text);
    const physical = text.split('\r\n');
    expect(physical.some((line) => line.startsWith(' '))).toBe(true);
    // Every physical line is valid UTF-8 by itself: no character was cut.
    for (const line of physical) expect(Buffer.from(Buffer.from(line, 'utf8').toString('utf8'), 'utf8').equals(Buffer.from(line, 'utf8'))).toBe(true);
    for (const line of physical) expect(line).not.toMatch(/[\ud800-\udbff]$|^ ?[\udc00-\udfff]/);
    const [card] = parseCards(text);
    expect(value(card!, 'fn')).toBe(`${long} ${'Ö'.repeat(50)}`);
    expect(foldLine('a'.repeat(75))).toBe(`${'a'.repeat(75)}\r\n`);
    expect(foldLine('a'.repeat(76))).toBe(`${'a'.repeat(75)}\r\n a\r\n`);
    // A two-octet character that would end at octet 76 moves to the next line whole.
    expect(foldLine(`${'a'.repeat(74)}é`)).toBe(`${'a'.repeat(74)}\r\n é\r\n`);
  });

  it("a guardian's short card has FN, N, EMAIL, TEL and UID only", () => {
    const guardian: VcardGuardian = { id: 3, firstname: 'Ann', lastname: 'Muster', email: 'ann@example.org', phonenumber: null, phonenumber_mobile: '079' };
    const text = vcardForGuardian(guardian, 'demo');
    expect(text.split('\r\n').slice(0, -1)).toEqual([
      'BEGIN:VCARD', 'VERSION:4.0', 'FN:Ann Muster', 'N:Muster;Ann;;;', 'EMAIL:ann@example.org', 'TEL;TYPE=cell;VALUE=text:079', `UID:${vcardUid('demo', 3)}`, 'END:VCARD',
    ]);
  });
});

describe('a list of cards', () => {
  async function* pages(...lists: VcardPerson[][]) {
    for (const list of lists) yield list;
  }
  const collect = async (chunks: AsyncIterable<string>) => {
    let text = '';
    for await (const chunk of chunks) text += chunk;
    return text;
  };

  it('writes every listed person page by page, then a short card for each guardian who is not listed, each once', async () => {
    const asked: number[][] = [];
    const guardiansOf = async (ids: readonly number[]) => {
      asked.push([...ids]);
      return ids.map((id) => ({ id, firstname: `G${id}`, lastname: 'Parent', email: null, phonenumber: `0${id}`, phonenumber_mobile: null }));
    };
    const text = await collect(
      vcardsOf(pages([person({ id: 1, guardian_ids: [2, 10] }), person({ id: 2, firstname: 'Listed' })], [], [person({ id: 3, guardian_ids: [10, 11] })]), 'demo', guardiansOf),
    );
    checkLines(text);
    expect(asked).toEqual([[10, 11]]);
    const cards = parseCards(text);
    expect(cards.map((card) => value(card, 'uid'))).toEqual([1, 2, 3, 10, 11].map((id) => vcardUid('demo', id)));
    // Every RELATED names a card of the same file.
    const uids = new Set(cards.map((card) => value(card, 'uid')));
    for (const card of cards) for (const related of props(card, 'related')) expect(uids.has(related.values[0] as string)).toBe(true);
    expect(props(cards[3]!, 'adr')).toEqual([]);
    expect(value(cards[3]!, 'fn')).toBe('G10 Parent');
  });

  it('asks for nothing when every guardian is listed, and writes nothing for an empty list', async () => {
    const guardiansOf = async () => {
      throw new Error('not asked');
    };
    expect(await collect(vcardsOf(pages([person({ id: 1 })]), 'demo', guardiansOf))).toBe(vcardForPerson(person({ id: 1 }), 'demo'));
    expect(await collect(vcardsOf(pages(), 'demo', guardiansOf))).toBe('');
  });
});
