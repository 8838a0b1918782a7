import type { TenantDb, UserRow } from '../../db/types.js';
import type { CardsDownload } from '../../http/download-format.js';
import type { Day } from '../../lib/time.js';
import { vcardForPerson, vcardsOf, type VcardGuardian, type VcardPerson } from '../contacts/vcard.js';
import type { Access } from '../permissions/rules.js';
import { peoplePages } from './csv.js';
import { guardianContactsOf, guardianIdsOfWards, type PeopleSelection } from './queries.js';
import { toApiPerson } from './schemas.js';

// People as vCards (docs/api/calendars-and-contacts.md): a person's card, GET /people's list and,
// through `cardsOfPages`, the members list. A card shows what the person's JSON shows the caller
// (both are made from toApiPerson), and names the guardians the caller sees, as the JSON's
// `include=guardians` does.

function cardOf(row: UserRow, guardianIds: readonly number[]): VcardPerson {
  const shown = toApiPerson(row);
  return {
    id: Number(shown.id),
    firstname: shown.firstname,
    lastname: shown.lastname,
    email: shown.email,
    phonenumber: shown.phonenumber,
    phonenumber_mobile: shown.phonenumber_mobile,
    street: shown.street,
    housenumber: shown.housenumber,
    zip: shown.zip,
    city: shown.city,
    birthday: shown.birthday,
    guardian_ids: guardianIds,
  };
}

/** The card of one person the caller sees (GET /people/{id} with `Accept: text/vcard`). */
export async function personCard(db: TenantDb, slug: string, access: Access, person: UserRow): Promise<string> {
  const guardians = await guardianIdsOfWards(db, access, [Number(person.id)]);
  return vcardForPerson(cardOf(person, guardians.get(Number(person.id)) ?? []), slug);
}

async function* withGuardianIds(db: TenantDb, access: Access, pages: AsyncIterable<readonly UserRow[]>): AsyncGenerator<VcardPerson[]> {
  for await (const page of pages) {
    // One read of the guardians for the page, however many people it holds.
    const guardians = await guardianIdsOfWards(db, access, page.map((row) => Number(row.id)));
    yield page.map((row) => cardOf(row, guardians.get(Number(row.id)) ?? []));
  }
}

const guardianCards = (db: TenantDb) => async (ids: readonly number[]): Promise<VcardGuardian[]> =>
  (await guardianContactsOf(db, ids)).map((row) => ({ ...row, id: Number(row.id) }));

/**
 * The cards of a list read page by page (people the caller sees), then a short card for each of
 * their guardians whom the caller sees and who is not listed themself.
 */
export function cardsOfPages(db: TenantDb, slug: string, access: Access, pages: AsyncIterable<readonly UserRow[]>): AsyncIterable<string> {
  return vcardsOf(withGuardianIds(db, access, pages), slug, guardianCards(db));
}

/**
 * GET /people as a vCard file: every person of the selection the caller sees, from the first on
 * (a vCard list ignores `cursor`, unlike the CSV), named for the tenant's `day`.
 */
export function peopleCards(db: TenantDb, slug: string, access: Access, selection: PeopleSelection, day: Day): CardsDownload {
  return { name: `people-${day}`, cards: cardsOfPages(db, slug, access, peoplePages(db, access, selection, null)) };
}
