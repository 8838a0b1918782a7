import type { Readable } from 'node:stream';
import type { TenantDb, UserRow } from '../../db/types.js';
import type { SortKey } from '../../http/paging.js';
import { csvStream, type Cell } from '../../lib/csv.js';
import type { CellKind, SheetColumn } from '../../lib/xlsx.js';
import type { Download } from '../../http/download-format.js';
import { requireGroupById } from '../memberships/rules.js';
import type { Access } from '../permissions/rules.js';
import { listVisiblePeople, personSortKey, sortNamesOf, type PeopleSelection } from './queries.js';
import { PersonSchema, toApiPerson, type ApiPerson, type PeopleFilters } from './schemas.js';

/** The columns of the people CSV: the person fields in their JSON order. */
export const PERSON_COLUMNS = Object.keys(PersonSchema.properties) as (keyof ApiPerson)[];

/** What each person column holds, so that a spreadsheet gets numbers, booleans and dates as its own types. */
const PERSON_KINDS = {
  id: 'number', username: 'text', email: 'text', firstname: 'text', lastname: 'text', gender_id: 'number', type_id: 'number',
  phonenumber: 'text', phonenumber_mobile: 'text', street: 'text', housenumber: 'text', zip: 'text', city: 'text',
  is_vegetarian: 'boolean', can_swimm: 'boolean', created_at: 'moment', updated_at: 'moment', birthday: 'day', has_login: 'boolean',
} as const satisfies Record<keyof ApiPerson, CellKind>;

/** The person columns of a file (the people list's, the members'), each with the kind of its cells. */
export const PERSON_SHEET_COLUMNS: readonly SheetColumn[] = PERSON_COLUMNS.map((name) => ({ name, kind: PERSON_KINDS[name] }));

/** Rows read a page at a time (keyset), so a list of any length streams in constant memory. */
const PAGE_ROWS = 2000;

/** GET /people's filters as a selection of listVisiblePeople (a group that does not exist is 404). */
export async function peopleSelection(db: TenantDb, access: Access, filters: Omit<PeopleFilters, 'limit' | 'cursor' | 'format'>): Promise<PeopleSelection> {
  const selection: PeopleSelection = { activeOn: filters.active_on ?? access.day, sort: filters.sort ?? 'name' };
  if (filters.group_id !== undefined) {
    const group = await requireGroupById(db, filters.group_id);
    selection.group = { id: Number(group.id), path: group.path, below: filters.below === true };
  }
  if (filters.role_type !== undefined) selection.roleType = filters.role_type;
  if (filters.ids !== undefined) selection.ids = [...new Set(filters.ids.split(',').map(Number))];
  if (filters.q !== undefined) selection.q = filters.q;
  if (filters.updated_since !== undefined) selection.updatedSince = new Date(filters.updated_since);
  if (filters.is_vegetarian !== undefined) selection.isVegetarian = filters.is_vegetarian;
  if (filters.can_swimm !== undefined) selection.canSwimm = filters.can_swimm;
  return selection;
}

/**
 * Every person of the selection the caller sees, as a file (CSV or XLSX), from the row after
 * `after` on, named for the tenant's `day`. Each page is read when the reader has taken the one
 * before, so memory stays flat however long the list.
 */
export function peopleDownload(db: TenantDb, access: Access, selection: PeopleSelection, day: string, after: SortKey | null = null): Download {
  return { name: `people-${day}`, sheet: 'People', columns: PERSON_SHEET_COLUMNS, rows: peopleRows(db, access, selection, after) };
}

/** The people CSV alone (the command line writes it to a file). */
export function peopleCsv(db: TenantDb, access: Access, selection: PeopleSelection, after: SortKey | null = null): Promise<Readable> {
  return csvStream(PERSON_COLUMNS, peopleRows(db, access, selection, after));
}

async function* peopleRows(db: TenantDb, access: Access, selection: PeopleSelection, after: SortKey | null): AsyncGenerator<Cell[]> {
  for await (const page of peoplePages(db, access, selection, after)) {
    for (const row of page) {
      const person = toApiPerson(row);
      yield PERSON_COLUMNS.map((column) => person[column]);
    }
  }
}

/** Every person of the selection the caller sees, from the row after `after` on, a page at a time (the files: CSV, XLSX, vCard). */
export async function* peoplePages(db: TenantDb, access: Access, selection: PeopleSelection, after: SortKey | null): AsyncGenerator<UserRow[]> {
  let from = after;
  for (;;) {
    const page = await listVisiblePeople(db, access, selection, from, PAGE_ROWS);
    yield page.slice(0, PAGE_ROWS);
    if (page.length <= PAGE_ROWS) return;
    const last = page[PAGE_ROWS - 1]!;
    from = personSortKey(last, selection.sort, sortNamesOf(last));
  }
}
