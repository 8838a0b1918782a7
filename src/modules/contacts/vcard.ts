import { uuidV5 } from './uuid.js';

// vCard 4.0 (RFC 6350) of people, for an address book: what a leader at a camp needs without
// signal to the service. Written by hand: the format is small and the lines are the product's
// (which fields, which TYPEs, the stable UID). Who may see what is the caller's business: these
// functions write what they are given.

// The answers' media type is the HTTP layer's (http/download-format.ts).

/** What a card shows of a person; null fields are left out. */
export interface VcardPerson {
  id: number;
  firstname: string;
  lastname: string;
  email: string | null;
  phonenumber: string | null;
  phonenumber_mobile: string | null;
  street: string | null;
  housenumber: string | null;
  zip: string | null;
  city: string | null;
  /** YYYY-MM-DD or null. */
  birthday: string | null;
  /** The person's guardians: a RELATED;TYPE=parent line each. */
  guardian_ids: readonly number[];
}

/** What the short card of a guardian who is not in the list itself shows. */
export type VcardGuardian = Pick<VcardPerson, 'id' | 'firstname' | 'lastname' | 'email' | 'phonenumber' | 'phonenumber_mobile'>;

const CRLF = '\r\n';
/** RFC 6350 3.2: a line is at most 75 octets, CRLF not counted; longer ones are folded. */
const MAX_LINE_OCTETS = 75;

/** The card's UID: stable per tenant and person, the same in every file and on every instance. */
export const vcardUid = (tenant: string, personId: number): string => `urn:uuid:${uuidV5(`${tenant}:${personId}`)}`;

/**
 * A text value (RFC 6350 3.4): backslash, comma and line breaks escaped. A semicolon is escaped
 * in the fields of N and ADR (`component`), where it would end the field; elsewhere RFC 6350 only
 * allows escaping it, and some readers (ical.js among them) would keep the backslash.
 */
export function escapeText(value: string, component = false): string {
  return value.replace(component ? /[\\,;]/g : /[\\,]/g, (match) => `\\${match}`).replace(/\r\n|\r|\n/g, '\\n');
}

/** A field of N or ADR. */
const escapeField = (value: string): string => escapeText(value, true);

/**
 * A content line folded at 75 octets: the line is cut before a character that would pass the
 * limit (never inside a UTF-8 sequence, nor between the halves of a surrogate pair) and each
 * continuation begins with a space, which counts toward its 75.
 */
export function foldLine(line: string): string {
  if (Buffer.byteLength(line, 'utf8') <= MAX_LINE_OCTETS) return line + CRLF;
  let folded = '';
  let octets = 0;
  for (const character of line) {
    const size = Buffer.byteLength(character, 'utf8');
    if (octets + size > MAX_LINE_OCTETS) {
      folded += `${CRLF} `;
      octets = 1;
    }
    folded += character;
    octets += size;
  }
  return folded + CRLF;
}

const present = (value: string | null): value is string => value !== null && value.trim() !== '';

function card(lines: readonly string[]): string {
  return ['BEGIN:VCARD', 'VERSION:4.0', ...lines, 'END:VCARD'].map(foldLine).join('');
}

/** FN, N, EMAIL and the two numbers: what every card has. */
function nameAndReach(person: VcardGuardian): string[] {
  const lines = [`FN:${escapeText(`${person.firstname} ${person.lastname}`.trim())}`, `N:${escapeField(person.lastname)};${escapeField(person.firstname)};;;`];
  if (present(person.email)) lines.push(`EMAIL:${escapeText(person.email)}`);
  // The numbers as written (text, not tel: URIs): people type them in every form.
  if (present(person.phonenumber)) lines.push(`TEL;TYPE=home;VALUE=text:${escapeText(person.phonenumber)}`);
  if (present(person.phonenumber_mobile)) lines.push(`TEL;TYPE=cell;VALUE=text:${escapeText(person.phonenumber_mobile)}`);
  return lines;
}

/** One person's card: FN, N, EMAIL, TEL (home, cell), ADR, BDAY, UID, and a RELATED;TYPE=parent per guardian. */
export function vcardForPerson(person: VcardPerson, tenant: string): string {
  const lines = nameAndReach(person);
  const street = [person.street, person.housenumber].filter(present).join(' ');
  if (street !== '' || present(person.city) || present(person.zip)) {
    // RFC 6350 order: post office box; extended address; street; locality; region; postal code; country.
    lines.push(`ADR;TYPE=home:;;${escapeField(street)};${escapeField(person.city ?? '')};;${escapeField(person.zip ?? '')};`);
  }
  if (person.birthday !== null && /^\d{4}-\d{2}-\d{2}$/.test(person.birthday)) lines.push(`BDAY:${person.birthday.replaceAll('-', '')}`);
  lines.push(`UID:${vcardUid(tenant, person.id)}`);
  for (const guardianId of person.guardian_ids) lines.push(`RELATED;TYPE=parent:${vcardUid(tenant, guardianId)}`);
  return card(lines);
}

/** The short card of a guardian who is not listed: FN, N, EMAIL, TEL, UID. */
export function vcardForGuardian(guardian: VcardGuardian, tenant: string): string {
  return card([...nameAndReach(guardian), `UID:${vcardUid(tenant, guardian.id)}`]);
}

/** How many guardians one call of `guardiansOf` asks for at most (bound of a statement's parameters). */
const GUARDIAN_CHUNK = 500;

/**
 * The cards of a list, read page by page as it is sent: one per listed person, then a short card
 * for each guardian of a listed person who is not listed themself, so that every RELATED line
 * names a card of the same file. `guardiansOf` reads those guardians (in the order it answers).
 */
export async function* vcardsOf(
  pages: AsyncIterable<readonly VcardPerson[]>,
  tenant: string,
  guardiansOf: (ids: readonly number[]) => Promise<readonly VcardGuardian[]>,
): AsyncGenerator<string> {
  const listed = new Set<number>();
  const named = new Set<number>();
  for await (const page of pages) {
    let chunk = '';
    for (const person of page) {
      listed.add(person.id);
      for (const id of person.guardian_ids) named.add(id);
      chunk += vcardForPerson(person, tenant);
    }
    if (chunk !== '') yield chunk;
  }
  const missing = [...named].filter((id) => !listed.has(id));
  for (let start = 0; start < missing.length; start += GUARDIAN_CHUNK) {
    const guardians = await guardiansOf(missing.slice(start, start + GUARDIAN_CHUNK));
    const chunk = guardians.map((guardian) => vcardForGuardian(guardian, tenant)).join('');
    if (chunk !== '') yield chunk;
  }
}
