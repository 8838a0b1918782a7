import type { Cell } from '../../lib/csv.js';
import type { SheetColumn } from '../../lib/xlsx.js';
import type { CardsDownload, Download } from '../../http/download-format.js';
import type { TenantDb } from '../../db/types.js';
import type { Day } from '../../lib/time.js';
import { PERSON_COLUMNS, PERSON_SHEET_COLUMNS } from '../people/csv.js';
import { toApiPerson } from '../people/schemas.js';
import type { MemberSelection } from './queries.js';
import type { Access } from '../permissions/rules.js';
import { cardsOfPages } from '../people/vcards.js';
import { everyMember, everyMemberPage, roleTypesOf } from './rules.js';

/** The members files' columns: those of GET /people's CSV, then `roles`. */
export const MEMBER_COLUMNS: readonly SheetColumn[] = [...PERSON_SHEET_COLUMNS, { name: 'roles', kind: 'text' }];

/** Role type keys in one cell. */
const ROLE_SEPARATOR = '; ';

/** The file's name without its extension: the group and the tenant's date. */
export const membersFileName = (groupId: number, day: Day): string => `members-${groupId}-${day}`;

async function* memberCells(db: TenantDb, selection: MemberSelection): AsyncGenerator<Cell[]> {
  for await (const { person, memberships } of everyMember(db, selection)) {
    const shown = toApiPerson(person);
    yield [...PERSON_COLUMNS.map((column) => shown[column]), roleTypesOf(memberships).join(ROLE_SEPARATOR)];
  }
}

/** The whole list as a file (every page at once; `limit` and `cursor` do not apply), made on the tenant's `day`. */
export function membersDownload(db: TenantDb, selection: MemberSelection, day: Day): Download {
  return { name: membersFileName(selection.group.id, day), sheet: 'Members', columns: MEMBER_COLUMNS, rows: memberCells(db, selection) };
}

/** The whole list as vCards (every page at once), with a short card for each guardian who is not a listed member. */
export function membersCards(db: TenantDb, slug: string, access: Access, selection: MemberSelection, day: Day): CardsDownload {
  return { name: membersFileName(selection.group.id, day), cards: cardsOfPages(db, slug, access, everyMemberPage(db, selection)) };
}
