import type { TenantDb, UserRow, GroupRow } from '../../db/types.js';
import { errors, fieldMessages, ruleMessages, type FieldErrors } from '../../errors.js';
import { requireIfMatch } from '../../http/etag.js';
import type { CursorCodec } from '../../http/paging.js';
import { pickFields } from '../../lib/pick.js';
import { toDbTimestamp } from '../../lib/time.js';
import { hashPassword } from '../../lib/passwords/passwords.js';
import { addMembership, requireGrantable, requireGroupById, lockPersonForMemberships } from '../memberships/rules.js';
import { holdsOnPerson, isRootAdmin, mayChangeLoginOf, rightToChange, type Access, isGuardian } from '../permissions/rules.js';
import { revokeAllTokens } from '../tokens/rules.js';
import {
  deleteGuardianship,
  erasePersonRows,
  rowsErasedWith,
  findLinkableByEmail,
  findPerson,
  findVisiblePerson,
  insertGuardianship,
  listGuardians,
  listVisiblePeopleAs,
  personSortKey,
  type PeopleColumns,
  type PeopleRow,
  type PeopleSelection,
  type SortNames,
} from './queries.js';
import type { NewPerson, PeopleFilters, PersonUpdate } from './schemas.js';
import { actorOf, noteChange, noteCreated, noteDeleted, noteUpdated, transact } from '../../recording/recorder.js';
import { forgetPersonInChanges } from '../../recording/records.js';
import { personChanges } from '../../recording/person-changes.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.js';
import { releasePlacesOf } from '../participations/seats.js';
import { tellStateNews, watchStates } from '../participations/news.js';
import { wakeAfterCommit, type Notifier } from '../notifications/rules.js';
import { requireAdministratorLeft } from '../memberships/last-administrator.js';
import {
  hasLogin,
  findUserByEmail,
  findUserByUsername,
  insertUser,
  newUserRow,
  updateUserProfile,
  changesAnything,
  type ProfileChanges,
} from '../users/rules.js';
import { forgetAnswersAbout } from '../idempotency/rules.js';
import { changesAddress, forgetAccountOf, noteEmailChange, type TenantFactsReader } from '../accounts/rules.js';
import type { MailHub } from '../mail/settings.js';

/** The notice a replaced e-mail address gets: from which tenant, and who changed it. */
export interface EmailChangeNotice {
  hub: MailHub;
  letterheads: TenantFactsReader;
  slug: string;
  actor: { id: number; firstname: string; lastname: string };
}

/** What PATCH /people/{id} may change (its schema's fields). */
const PERSON_FIELDS = [
  'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile', 'street',
  'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'birthday', 'password',
] as const satisfies readonly (keyof PersonUpdate)[];

/** A person the caller sees, or 404 `Person not found.`, exactly as for an id that does not exist. */
export async function requireVisiblePerson(db: TenantDb, access: Access, id: number | null): Promise<UserRow> {
  const person = id === null ? undefined : await findVisiblePerson(db, access, id);
  if (!person) throw errors.notFound('Person');
  return person;
}

/**
 * A page of GET /people before its cursor is made. `cursorAfterLast`, when another page follows:
 * the cursor after the page's last row, given that person's `SortNames` (a page of `PersonRef`s
 * does not read them; the caller takes them from the person's kept JSON).
 */
export interface PeoplePage<Row> {
  rows: Row[];
  cursorAfterLast: ((names: SortNames) => string) | null;
}

/** GET /people as JSON, a page of `columns`; `groupOf` reads the group named by `group_id` (404 when there is none). */
export async function listPeople<C extends PeopleColumns>(
  db: TenantDb,
  access: Access,
  filters: PeopleFilters,
  limit: number,
  cursors: CursorCodec,
  groupOf: (id: number) => Promise<GroupRow | undefined>,
  columns: C,
): Promise<PeoplePage<PeopleRow<C>>> {
  const sort = filters.sort ?? 'name';
  const list = `people:${sort}`;
  const after = filters.cursor === undefined ? null : cursors.decode(list, filters.cursor);
  const selection: PeopleSelection = { activeOn: filters.active_on ?? access.day, sort };
  if (filters.group_id !== undefined) {
    const group = await groupOf(filters.group_id);
    if (!group) throw errors.notFound('Group');
    selection.group = { id: Number(group.id), path: group.path, below: filters.below === true };
  }
  if (filters.role_type !== undefined) selection.roleType = filters.role_type;
  if (filters.ids !== undefined) selection.ids = [...new Set(filters.ids.split(',').map(Number))];
  if (filters.q !== undefined) selection.q = filters.q;
  if (filters.updated_since !== undefined) selection.updatedSince = new Date(filters.updated_since);
  if (filters.is_vegetarian !== undefined) selection.isVegetarian = filters.is_vegetarian;
  if (filters.can_swimm !== undefined) selection.canSwimm = filters.can_swimm;
  const rows = await listVisiblePeopleAs(db, access, selection, after, limit, columns);
  if (rows.length <= limit) return { rows, cursorAfterLast: null };
  const shown = rows.slice(0, limit);
  const last = shown[limit - 1]!;
  return { rows: shown, cursorAfterLast: (names) => cursors.encode(list, personSortKey(last, sort, names)) };
}

async function loginConflicts(db: TenantDb, personId: number | null, username: string | null | undefined, email: string | null | undefined) {
  const conflicts: FieldErrors = {};
  if (username) {
    const owner = await findUserByUsername(db, username);
    if (owner && Number(owner.id) !== personId) conflicts.username = [fieldMessages.taken('username')];
  }
  if (email) {
    const owner = await findUserByEmail(db, email);
    if (owner && Number(owner.id) !== personId) conflicts.email = [fieldMessages.taken('email')];
  }
  if (Object.keys(conflicts).length > 0) throw errors.validation(conflicts);
}

/** A login needs a username, a password and an e-mail address. */
function loginProblems(username: string | null, password: string | null, email: string | null): FieldErrors | null {
  if (username === null && password === null) return null;
  const problems: FieldErrors = {};
  if (username === null) problems.username = [fieldMessages.required('username')];
  if (password === null) problems.password = [fieldMessages.required('password')];
  if (email === null) problems.email = [fieldMessages.required('email')];
  return Object.keys(problems).length > 0 ? problems : null;
}

/**
 * The first membership is active today (a person nobody could see is never
 * created): one that starts later or ended before would leave the new person out of every list
 * and 404 to the caller who made them.
 */
function firstMembershipProblems({ start_on, end_on }: NonNullable<NewPerson['membership']>, today: string): FieldErrors {
  const problems: FieldErrors = {};
  if (start_on !== undefined && start_on > today) problems['membership.start_on'] = [fieldMessages.dateBeforeOrEqual('membership.start_on', 'today')];
  if (end_on !== undefined && end_on !== null && end_on < today) problems['membership.end_on'] = [fieldMessages.dateAfterOrEqual('membership.end_on', 'today')];
  return problems;
}

/**
 * POST /people with a first `membership`: its group (404) with `write` there and a role not above
 * the caller's own (403); with `guardian_of` instead: the right to add a guardian to that person
 * (a parent created for a child, without a membership of their own). Then the person, and the
 * membership or the guardianship, in one transaction.
 */
export async function createPerson(db: TenantDb, access: Access, input: NewPerson): Promise<UserRow> {
  const { membership, guardian_of: wardId } = input;
  const ward = membership === undefined ? await requireGuardianManager(db, access, wardId ?? null) : null;
  if (membership !== undefined) await requireGrantable(db, access, await requireGroupById(db, membership.group_id), membership.role_type);
  const problems = { ...loginProblems(input.username ?? null, input.password ?? null, input.email ?? null), ...(membership ? firstMembershipProblems(membership, access.day) : {}) };
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  await loginConflicts(db, null, input.username, input.email);
  const password = input.password === undefined ? null : await hashPassword(input.password);
  const timestamp = toDbTimestamp(new Date());
  return transact(db, actorOf(access), async (trx) => {
    const person = await insertUser(trx, newUserRow(input, { username: input.username ?? null, email: input.email ?? null, password }, timestamp));
    const personId = Number(person.id);
    noteCreated(trx, 'person', personId, { personId });
    if (membership !== undefined) await addMembership(trx, personId, membership, access.day);
    if (ward !== null) await linkGuardian(trx, Number(ward.id), personId);
    return person;
  });
}

/** How the caller may change P, checked before the body is read: 404 unseen, 403 no right. */
export async function requireChangeable(db: TenantDb, access: Access, id: number | null): Promise<{ person: UserRow; right: 'full' | 'profile' }> {
  const person = await requireVisiblePerson(db, access, id);
  const right = await rightToChange(db, access, Number(person.id));
  if (!right) throw errors.unauthorized();
  return { person, right };
}

/**
 * PATCH /people/{id}: a guardian changes the profile only; `password` needs `admin` on the root
 * (and ends the person's sessions); a new username or e-mail follows the login-field rule
 * (permissions/rules.ts mayChangeLoginOf).
 */
export async function changePerson(
  db: TenantDb,
  access: Access,
  target: { person: UserRow; right: 'full' | 'profile' },
  input: PersonUpdate,
  ifMatch: string | undefined,
  /** Where the notice to a replaced address goes; the caller wakes the worker after the commit. */
  notice?: EmailChangeNotice,
): Promise<UserRow> {
  const { person, right } = target;
  const personId = Number(person.id);
  if (input.username !== undefined && right !== 'full') throw errors.unauthorized();
  if (input.password !== undefined && !isRootAdmin(access)) throw errors.unauthorized();
  // The username of someone without a login is no key yet: the right to change them fully is enough (above).
  const changesLogin = (hasLogin(person) && input.username !== undefined && input.username !== person.username) || (input.email !== undefined && input.email !== person.email);
  if (changesLogin && !(await mayChangeLoginOf(db, access, { id: personId, hasLogin: hasLogin(person) }, right))) throw errors.unauthorized();
  const { password, ...fields } = pickFields(input, PERSON_FIELDS);
  const hash = password === undefined ? undefined : await hashPassword(password);
  // Read before the transaction: the registry is not the tenant's database.
  let tenant = notice && changesAddress(person.email, input.email) ? await notice.letterheads.of(notice.slug) : null;
  return transact(db, actorOf(access), async (trx) => {
    const current = await findPerson(trx, personId);
    if (!current) throw errors.notFound('Person');
    requireIfMatch(ifMatch, current.version);
    const problems = loginProblems(fields.username ?? current.username, hash ?? current.password, fields.email === undefined ? current.email : fields.email);
    if (problems) throw errors.validation(problems);
    await loginConflicts(trx, personId, fields.username, fields.email);
    const { is_vegetarian, can_swimm, ...rest } = fields;
    const changes: ProfileChanges = { ...rest };
    if (is_vegetarian !== undefined) changes.is_vegetarian = is_vegetarian ? 1 : 0;
    if (can_swimm !== undefined) changes.can_swimm = can_swimm ? 1 : 0;
    if (hash !== undefined) changes.password = hash;
    if (!changesAnything(current, changes)) return current;
    const updated = await updateUserProfile(trx, personId, changes, toDbTimestamp(new Date()));
    noteUpdated(trx, 'person', personId, personChanges(current, updated), { personId });
    if (hash !== undefined) await revokeAllTokens(trx, personId);
    if (notice && changesAddress(current.email, updated.email)) {
      tenant ??= await notice.letterheads.of(notice.slug);
      await noteEmailChange(trx, { hub: notice.hub, tenant }, current, updated, notice.actor);
    }
    return updated;
  });
}

/** DELETE /people/{id} (erasure): `admin` on the root; never the last administrator; their seats go to the waiting list. */
export async function erasePerson(db: TenantDb, access: Access, person: UserRow, ifMatch: string | undefined, notifier: Notifier | null = null): Promise<void> {
  if (!isRootAdmin(access)) throw errors.unauthorized();
  const personId = Number(person.id);
  // An administrator who erases themself is not named as the actor of their own tombstones.
  const actor = actorOf(access) === personId ? null : actorOf(access);
  const queued = await transact(db, actor, async (trx) => {
    // The person first, then the administrators: the order every membership write takes its locks in.
    if (!(await lockPersonForMemberships(trx, personId))) throw errors.notFound('Person');
    const current = await findPerson(trx, personId);
    if (!current) throw errors.notFound('Person');
    requireIfMatch(ifMatch, current.version);
    await requireAdministratorLeft(trx, access, 'person', (administration) => administration.person_id === personId);
    // Seats and waiting-list places are freed as a cancellation frees them.
    const erased = await rowsErasedWith(trx, personId);
    // Whoever moves up from a waiting list hears of it by mail.
    watchStates(trx);
    await releasePlacesOf(trx, personId, toDbTimestamp(new Date()));
    await forgetAnswersAbout(trx, personId);
    await forgetAccountOf(trx, personId);
    await erasePersonRows(trx, personId);
    // Tombstones for the person and what went with them; their personal data leaves the records.
    for (const id of erased.membershipIds) noteDeleted(trx, 'membership', id, { personId });
    for (const { wardId, guardianId } of erased.guardianships) {
      noteChange(trx, { entity: 'guardianship', entityId: wardId, action: 'deleted', personId: wardId, otherPersonId: guardianId });
    }
    for (const id of erased.participationIds) noteDeleted(trx, 'participation', id, { personId });
    noteDeleted(trx, 'person', personId, { personId });
    await forgetPersonInChanges(trx, personId);
    return tellStateNews(trx, notifier, null);
  });
  if (notifier) wakeAfterCommit(notifier, queued);
}

export const guardiansOf = listGuardians;

/**
 * Adding or removing a guardian needs `write` where P is (root for P without a membership):
 * guardians themselves cannot. 404 when the caller cannot see P, else 403.
 */
export async function requireGuardianManager(db: TenantDb, access: Access, wardId: number | null): Promise<UserRow> {
  const ward = await requireVisiblePerson(db, access, wardId);
  if (!(await holdsOnPerson(db, access, Number(ward.id), 'write'))) throw errors.unauthorized();
  return ward;
}

/**
 * POST /people/{id}/guardians: the guardian named by id (someone the caller sees) or by e-mail (the
 * tenant's person with that address, case-insensitive, whom the caller sees or who has no membership
 * that has not ended: a parent known only by their address); else 404 `Person not found.`
 */
export async function addGuardian(db: TenantDb, access: Access, ward: UserRow, named: { guardian_id: number } | { email: string }): Promise<UserRow> {
  const guardian = 'guardian_id' in named ? await requireVisiblePerson(db, access, named.guardian_id) : await requireGuardianByEmail(db, access, named.email);
  const guardianId = Number(guardian.id);
  const wardId = Number(ward.id);
  const field = 'guardian_id' in named ? 'guardian_id' : 'email';
  if (guardianId === wardId) throw errors.invalidField(field, ruleMessages.guardianIsPerson);
  return transact(db, actorOf(access), async (trx) => {
    if (await isGuardian(trx, guardianId, wardId)) throw errors.invalidField(field, ruleMessages.alreadyGuardian);
    await linkGuardian(trx, wardId, guardianId).catch((error: unknown) => {
      // The same link made by another request since the check above.
      throw isUniqueViolation(error, 'guardianships_ward_guardian_unique') ? errors.invalidField(field, ruleMessages.alreadyGuardian) : error;
    });
    return guardian;
  });
}

async function requireGuardianByEmail(db: TenantDb, access: Access, email: string): Promise<UserRow> {
  // Unknown, hidden and unlinkable addresses are one answer, from one statement.
  const person = await findLinkableByEmail(db, access, email);
  if (!person) throw errors.notFound('Person');
  return person;
}

/** The guardianship and its change record (inside the caller's transaction). */
async function linkGuardian(trx: TenantDb, wardId: number, guardianId: number): Promise<void> {
  await insertGuardianship(trx, wardId, guardianId, toDbTimestamp(new Date())).catch((error: unknown) => {
    // The ward or the guardian was erased since the request read them.
    throw isForeignKeyViolation(error) ? errors.notFound('Person') : error;
  });
  noteChange(trx, { entity: 'guardianship', entityId: wardId, action: 'created', changes: { guardian_id: [null, guardianId] }, personId: wardId, otherPersonId: guardianId });
}

/**
 * DELETE /people/{id}/guardians/{guardian_id}: the guardian must be someone the caller sees, as for
 * adding one (404 `Person not found.`, as for an id that names no one), so that a hidden link is
 * neither confirmed nor removed; then 404 `Guardian not found.` when there is no link.
 */
export async function removeGuardian(db: TenantDb, access: Access, ward: UserRow, guardianId: number | null): Promise<void> {
  const guardian = await requireVisiblePerson(db, access, guardianId);
  const wardId = Number(ward.id);
  await transact(db, actorOf(access), async (trx) => {
    const removed = await deleteGuardianship(trx, wardId, Number(guardian.id));
    if (!removed) throw errors.notFound('Guardian');
    noteChange(trx, { entity: 'guardianship', entityId: wardId, action: 'deleted', changes: { guardian_id: [Number(guardian.id), null] }, personId: wardId, otherPersonId: Number(guardian.id) });
  });
}

// What other modules use of this module's queries: named here, so that its tables stay its own.
export {
  activeMemberNames,
  activeRoleHolderIds,
  findPeopleByEmails,
  findPeopleByIds,
  findPerson,
  listGuardians,
  listWards,
  unendedRoleHolderIds,
} from './queries.js';
