import type { TenantDb, UserRow, MembershipRow } from '../../db/types.js';
import { errors } from '../../errors.js';
import { canSeePerson, isRootAdmin, operatorAccess, type Access } from '../permissions/rules.js';
import { listTokens } from '../tokens/rules.js';
import type { TokenListItem } from '../tokens/schemas.js';
import { readAllPages } from '../../lib/read-all-pages.js';
import type { Day } from '../../lib/time.js';
import { historyOf, type HistoryRow } from '../../recording/records.js';
import { findGroup } from '../groups/rules.js';
import { listPersonMemberships } from '../memberships/rules.js';
import { findPerson, listGuardians, listWards } from '../people/rules.js';
import { listParticipationsOfPerson } from '../participations/rules.js';
import { messagesReceivedBy } from './queries.js';

const PAGE_ROWS = 200;

export interface PersonalData {
  person: UserRow;
  memberships: { membership: MembershipRow; groupName: string }[];
  /** Every guardian and ward: the links are the person's own data (their names only are shown). */
  guardians: UserRow[];
  wards: UserRow[];
  participations: Awaited<ReturnType<typeof listParticipationsOfPerson>>;
  tokens: TokenListItem[];
  /** The change records of their person, memberships and participations, newest first. */
  history: HistoryRow[];
  /** The leaders' messages they received, newest first. */
  messages: { id: number; subject: string; created_at: string }[];
}

/** Every membership of the person (active, future, ended), by id. */
function allMemberships(db: TenantDb, personId: number): Promise<MembershipRow[]> {
  return readAllPages((after, size) => listPersonMemberships(db, personId, null, after, size), (row) => Number(row.id), PAGE_ROWS);
}

/** Every change record about the person, newest first. */
function wholeHistory(db: TenantDb, personId: number): Promise<HistoryRow[]> {
  const subject = { kind: 'person', id: personId, participationIds: 'all' } as const;
  return readAllPages((before, size) => historyOf(db, subject, before, size), (row) => Number(row.seq), PAGE_ROWS);
}

/**
 * GET /user/export: everything kept about the caller, the answer to a
 * data-access request.
 */
export async function personalDataOf(db: TenantDb, day: Day, personId: number, currentTokenId: number | null): Promise<PersonalData> {
  const person = await findPerson(db, personId);
  if (!person) throw errors.notFound('Person');
  const memberships = await allMemberships(db, personId);
  const groupNames = new Map<number, string>();
  for (const groupId of new Set(memberships.map((membership) => Number(membership.group_id)))) {
    groupNames.set(groupId, (await findGroup(db, groupId))?.name ?? '');
  }
  return {
    person,
    memberships: memberships.map((membership) => ({ membership, groupName: groupNames.get(Number(membership.group_id)) ?? '' })),
    guardians: await listGuardians(db, await operatorAccess(db, day), personId),
    wards: await listWards(db, personId),
    participations: await listParticipationsOfPerson(db, personId),
    tokens: await listTokens(db, personId, currentTokenId),
    history: await wholeHistory(db, personId),
    messages: await messagesReceivedBy(db, personId),
  };
}

/**
 * GET /people/{id}/export: the same data about P, for an administrator (`admin` on the root) who
 * answers P's data-access request. Who does not see P hears 404, as for any person; who sees P
 * without being administrator, 403. No token in it is `current`: the request's token is not P's.
 */
export async function personalDataForAdministrator(db: TenantDb, access: Access, personId: number): Promise<PersonalData> {
  if (!(await canSeePerson(db, access, personId))) throw errors.notFound('Person');
  if (!isRootAdmin(access)) throw errors.unauthorized();
  return personalDataOf(db, access.day, personId, null);
}
