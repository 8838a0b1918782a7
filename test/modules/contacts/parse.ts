import ICAL from 'ical.js';
import { expect } from 'vitest';

/** A card as ical.js parses it (jCard, RFC 7095). */
export type JCard = ['vcard', [string, Record<string, string>, string, ...unknown[]][], unknown[]];

/** Every card of a vCard file, parsed by ical.js. */
export function parseCards(text: string): JCard[] {
  const parsed = ICAL.parse(text) as unknown;
  return (Array.isArray(parsed) && parsed[0] === 'vcard' ? [parsed] : parsed) as JCard[];
}

/** The values of a property of a parsed card, with its parameters. */
export const props = (card: JCard, name: string) => card[1].filter((prop) => prop[0] === name).map(([, params, type, ...values]) => ({ params, type, values }));

/** The first value of a property of a parsed card. */
export const value = (card: JCard, name: string) => props(card, name)[0]?.values[0];

/** The names of a card's properties, in order. */
export const propertyNames = (card: JCard) => card[1].map((prop) => prop[0]);

/** Physical lines of a file: all end with CRLF, none longer than 75 octets. */
export function checkLines(text: string): void {
  expect(text.endsWith('\r\n')).toBe(true);
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  for (const line of text.slice(0, -2).split('\r\n')) expect(Buffer.byteLength(line, 'utf8'), line).toBeLessThanOrEqual(75);
}
