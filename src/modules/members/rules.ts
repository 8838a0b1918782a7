import { ROWS_PER_STATEMENT } from '../../db/statement-chunks.js';
import type { GroupRow, TenantDb } from '../../db/types.js';
import { errors } from '../../errors.js';
import type { CursorCodec, SortKey } from '../../http/paging.js';
import { compareText } from '../../lib/sort-key.js';
import { atLeast, PERMISSIONS } from '../permissions/levels.js';
import type { Access } from '../permissions/rules.js';
import { countMembers, listMemberPage, memberSortKey, selectedMembershipsOf, type MemberRow, type MemberSelection, type SelectedMembershipRow } from './queries.js';
import type { MembersFilters } from './schemas.js';

/** A person of the list with their selected memberships. */
export interface Member {
  person: MemberRow;
  memberships: SelectedMembershipRow[];
}

/**
 * What GET /groups/{id}/members lists, for a caller with `read` on the group (else 403; every
 * person sees every group, so never 404 for one that exists). The people are those with a
 * membership the filters select who are also people the caller sees (lists hold only visible
 * people): with `all` or another day, someone whose only membership there has ended is listed
 * only when the caller sees them otherwise.
 */
export function memberSelection(access: Access, group: GroupRow, filters: MembersFilters, { streamed = false } = {}): MemberSelection {
  if (!atLeast(access.on(group.path), 'read')) throw errors.unauthorized();
  const selection: MemberSelection = {
    group: { id: Number(group.id), path: group.path },
    below: filters.below === true,
    activeOn: filters.all === true ? null : (filters.active_on ?? access.day),
    sort: filters.sort ?? 'name',
    seenBy: access,
  };
  if (filters.role_type !== undefined) selection.roleType = filters.role_type;
  if (filters.q !== undefined) selection.q = filters.q;
  // A file streams for seconds, and a move of the tree meanwhile may take people out of sight: it
  // keeps testing each person; a page, read in one statement, may skip the test.
  if (!streamed && everyoneSelectedIsSeen(access, selection)) selection.seenBy = null;
  return selection;
}

/**
 * Whether the selection holds only people the caller sees anyway: memberships active today in
 * groups the caller reads (whoever reads a group sees its active members). The visibility test
 * of each person is then left out of the queries.
 */
function everyoneSelectedIsSeen(access: Access, { group, below, activeOn }: MemberSelection): boolean {
  if (activeOn !== access.day) return false;
  const readable = access.groupsWith('read');
  return readable.subtreePaths.some((path) => group.path.startsWith(path)) || (!below && readable.groupIds.includes(group.id));
}

/** A page of the list, and on the first page (no cursor) how many people it holds in all. */
export interface MembersPage {
  members: Member[];
  nextCursor: string | null;
  total?: number;
}

const listName = (selection: MemberSelection) => `group-members:${selection.group.id}:${selection.sort}`;

/** A page of the members list: three statements (the people, their memberships, and on the first page the count). */
export async function listMembers(db: TenantDb, selection: MemberSelection, cursors: CursorCodec, cursor: string | undefined, limit: number): Promise<MembersPage> {
  const list = listName(selection);
  const after = cursor === undefined ? null : cursors.decode(list, cursor);
  const rows = await listMemberPage(db, selection, after, limit);
  const page = cursors.page(list, rows, limit, (row) => memberSortKey(row, selection.sort));
  const [members, total] = await Promise.all([withMemberships(db, selection, page.rows), after === null ? countMembers(db, selection) : undefined]);
  return { members, nextCursor: page.nextCursor, ...(total === undefined ? {} : { total }) };
}

async function withMemberships(db: TenantDb, selection: MemberSelection, people: MemberRow[]): Promise<Member[]> {
  const byPerson = new Map<number, SelectedMembershipRow[]>();
  for (const membership of await selectedMembershipsOf(db, selection, people.map((person) => Number(person.id)))) {
    const personId = Number(membership.person_id);
    byPerson.set(personId, [...(byPerson.get(personId) ?? []), membership]);
  }
  return people.map((person) => ({ person, memberships: byPerson.get(Number(person.id)) ?? [] }));
}

/**
 * People read a page at a time for a file, so a list of any length streams in constant memory; as
 * many as one statement looks up at once, so a page's memberships stay one statement.
 */
const FILE_PAGE_ROWS = ROWS_PER_STATEMENT;

/** Every person of the selection with their memberships, in the list's order, read page by page (keyset). */
export async function* everyMember(db: TenantDb, selection: MemberSelection): AsyncGenerator<Member> {
  for await (const page of everyMemberPage(db, selection)) yield* await withMemberships(db, selection, page);
}

/** Every person of the selection, in the list's order, a page at a time (keyset): the vCards need no memberships. */
export async function* everyMemberPage(db: TenantDb, selection: MemberSelection): AsyncGenerator<MemberRow[]> {
  let after: SortKey | null = null;
  for (;;) {
    const rows = await listMemberPage(db, selection, after, FILE_PAGE_ROWS);
    const shown = rows.slice(0, FILE_PAGE_ROWS);
    yield shown;
    if (rows.length <= FILE_PAGE_ROWS) return;
    after = memberSortKey(shown[FILE_PAGE_ROWS - 1]!, selection.sort);
  }
}

const strength = (membership: SelectedMembershipRow) => PERMISSIONS.indexOf(membership.permission);

/**
 * The role types of a person's selected memberships, each once, strongest first (highest
 * permission, then smallest key): the first is the one the `role` sort orders them by.
 */
export function roleTypesOf(memberships: readonly SelectedMembershipRow[]): string[] {
  const strongestFirst = [...memberships].sort((a, b) => strength(b) - strength(a) || compareText(a.role_type, b.role_type));
  return [...new Set(strongestFirst.map((membership) => membership.role_type))];
}
