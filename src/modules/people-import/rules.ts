import type { TenantDb, UserRow, GroupRow } from '../../db/types.js';
import { errors, fieldMessages, importMessages, ruleMessages, type FieldErrors } from '../../errors.js';
import { toDbTimestamp } from '../../lib/time.js';
import { lowerAscii } from '../../lib/validation.js';
import { requireGrantable, requireGroupById, insertMemberships } from '../memberships/rules.js';
import { mayChangeLoginOf, rightsToChange, type Access } from '../permissions/rules.js';
import { IMPORTED_FIELDS, type ImportedField, type ImportFile, type ImportRow } from './parse.js';
import { parseBooleanCell, parseDateCell } from './values.js';
import { actorOf, noteCreated, noteUpdated, transact } from '../../recording/recorder.js';
import { personChanges } from '../../recording/person-changes.js';
import { ImportRowSchema, validateImportRow, type ImportCounts, type ImportRowDetail, type ImportRowInput } from './schemas.js';
import { activeMemberNames, activeRoleHolderIds, findPeopleByEmails, findPeopleByIds, unendedRoleHolderIds } from '../people/rules.js';
import { hasLogin, insertUsers, newUserRow, updateUserProfile, type ProfileChanges } from '../users/rules.js';

/** Where every row of a file goes: a group and a role type the caller may grant there. */
export interface ImportTarget {
  group: GroupRow;
  roleType: string;
}

/**
 * The whole file is refused (404 group or role type, 403) unless the caller has `write` on the
 * group and the role type's permission is not above their own there.
 */
export async function requireImportTarget(db: TenantDb, access: Access, groupId: number, roleType: string): Promise<ImportTarget> {
  const group = await requireGroupById(db, groupId);
  await requireGrantable(db, access, group, roleType);
  return { group, roleType };
}

/** Not nullable: an empty cell leaves the stored value as it is (a new person: the default). */
const REQUIRED: ReadonlySet<ImportedField> = new Set(['firstname', 'lastname', 'is_vegetarian', 'can_swimm']);
const INTEGERS: ReadonlySet<ImportedField> = new Set(['gender_id', 'type_id']);
const FLAGS: ReadonlySet<ImportedField> = new Set(['is_vegetarian', 'can_swimm']);
type PersonField = Exclude<ImportedField, 'username'>;
const PERSON_FIELDS = IMPORTED_FIELDS.filter((field): field is PersonField => field !== 'username');
const ROW_FIELD_ORDER = ['username', ...Object.keys(ImportRowSchema.properties)];

/** A cell as the value its field takes (undefined: leave as it is), or the message of a cell that fits no form. */
function cellValue(field: ImportedField, cell: string): { value: unknown } | { problem: string } {
  if (cell === '') return { value: REQUIRED.has(field) ? undefined : null };
  if (INTEGERS.has(field) && /^-?\d{1,15}$/.test(cell)) return { value: Number(cell) };
  if (FLAGS.has(field)) {
    const flag = parseBooleanCell(cell);
    return flag === null ? { problem: importMessages.notYesNo(field) } : { value: flag };
  }
  if (field === 'birthday') {
    const day = parseDateCell(cell);
    return day === null ? { problem: importMessages.notDate(field) } : { value: day };
  }
  // Text that is not a value of its field stays text, so validation words the problem.
  return { value: cell };
}

/**
 * A row's fields, checked as PATCH /people checks them. The fields that fail are reported and left
 * out of `input`, so that the row's other rules (the e-mail of an earlier row, and where the match
 * is still known, the username, the names a new person needs, the right to change the match) are
 * checked on the rest: the 422 names every problem of every row, and fixing a
 * cell brings up no new one. `invalid`: the fields left out.
 */
function rowInput(row: ImportRow): { input: ImportRowInput; problems: string[]; invalid: Set<string> } {
  const values: Record<string, unknown> = {};
  const byField: Record<string, string[]> = { ...row.cellProblems };
  for (const field of PERSON_FIELDS) {
    const cell = row.cells[field];
    if (cell === undefined) continue;
    const read = cellValue(field, cell);
    if ('problem' in read) byField[field] = [read.problem];
    else if (read.value !== undefined) values[field] = read.value;
  }
  const check = validateImportRow(values);
  if (!check.ok) {
    Object.assign(byField, check.fieldErrors);
    for (const field of Object.keys(check.fieldErrors)) delete values[field];
  }
  // Every field is optional and checked on its own: what is left passes.
  const rest = check.ok ? check : validateImportRow(values);
  if (!rest.ok) throw new Error('an import row without its failing fields still fails');
  // In the order PATCH /people names its fields, whichever check found the problem.
  const fieldProblems = ROW_FIELD_ORDER.flatMap((field) => byField[field] ?? []);
  const problems = [...(row.overflowing ? [importMessages.tooManyCells] : []), ...fieldProblems];
  return { input: rest.value, problems, invalid: new Set(Object.keys(byField)) };
}

const stored = (field: PersonField, person: UserRow): unknown => {
  const value = person[field];
  if (FLAGS.has(field)) return Boolean(value);
  if (INTEGERS.has(field)) return value === null ? null : Number(value);
  return value;
};

/** What a matched row changes about its person: the given fields whose value differs. */
function changesOf(input: ImportRowInput, person: UserRow): ProfileChanges {
  const changes: Record<string, unknown> = {};
  for (const field of PERSON_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (field === 'email') {
      // Required for a login: an empty cell leaves it. A difference in case alone is no change.
      if (value === null && person.username !== null && person.password !== null) continue;
      if (value !== null && person.email !== null && lowerAscii(value as string) === lowerAscii(person.email)) continue;
    }
    if (value !== stored(field, person)) changes[field] = FLAGS.has(field) ? (value ? 1 : 0) : value;
  }
  return changes as ProfileChanges;
}

const nameKey = (firstname: string, lastname: string, birthday: string | null | undefined) =>
  JSON.stringify(birthday === undefined ? [firstname, lastname] : [firstname, lastname, birthday]);

interface PlannedRow {
  row: number;
  input: ImportRowInput;
  person: UserRow | null;
  changes: ProfileChanges;
  joins: boolean;
}

/** Every row's problems, by row number, as the 422 names them: `row 7`. */
class RowProblems {
  private readonly byRow = new Map<number, string[]>();
  add(row: number, ...messages: string[]) {
    if (messages.length === 0) return;
    this.byRow.set(row, [...(this.byRow.get(row) ?? []), ...messages]);
  }
  get empty() {
    return this.byRow.size === 0;
  }
  toFieldErrors(): FieldErrors {
    return Object.fromEntries([...this.byRow.entries()].sort(([a], [b]) => a - b).map(([row, messages]) => [`row ${row}`, messages]));
  }
}

/**
 * Reads every row against the tenant: validation as PATCH /people, matching
 * by e-mail (any case) or else by name and birthday among the group's active members, the
 * username rule, the caller's right to change each matched person. Writes nothing.
 */
async function planImport(db: TenantDb, access: Access, target: ImportTarget, file: ImportFile) {
  const problems = new RowProblems();
  const inputs: { row: ImportRow; input: ImportRowInput; invalid: Set<string> }[] = [];
  const emailRows = new Map<string, number>();
  for (const row of file.rows) {
    const { input, problems: found, invalid } = rowInput(row);
    problems.add(row.row, ...found);
    if (typeof input.email === 'string') {
      const key = lowerAscii(input.email);
      const first = emailRows.get(key);
      if (first !== undefined) problems.add(row.row, importMessages.emailTakenInRow(first));
      else emailRows.set(key, row.row);
    }
    inputs.push({ row, input, invalid });
  }

  const groupId = Number(target.group.id);
  const byEmail = new Map((await findPeopleByEmails(db, [...emailRows.keys()])).map((person) => [lowerAscii(person.email ?? ''), person]));
  const namesGiven = file.fields.has('birthday');
  const byName = new Map<string, number[]>();
  if (inputs.some(({ input }) => typeof input.email !== 'string')) {
    for (const member of await activeMemberNames(db, groupId, access.day)) {
      const key = nameKey(member.firstname, member.lastname, namesGiven ? member.birthday : undefined);
      byName.set(key, [...(byName.get(key) ?? []), Number(member.id)]);
    }
  }
  const nameMatches = new Map<number, number>();
  for (const { row, input, invalid } of inputs) {
    if (typeof input.email === 'string' || input.firstname === undefined || input.lastname === undefined) continue;
    // A row whose e-mail or birthday failed matches no one by name: what it meant is unknown.
    if (invalid.has('email') || invalid.has('birthday')) continue;
    const ids = byName.get(nameKey(input.firstname, input.lastname, namesGiven ? (input.birthday ?? null) : undefined)) ?? [];
    if (ids.length === 1) nameMatches.set(row.row, ids[0]!);
  }
  const byId = new Map((await findPeopleByIds(db, [...new Set(nameMatches.values())])).map((person) => [Number(person.id), person]));
  const holders = await activeRoleHolderIds(db, groupId, target.roleType, access.day);
  const unended = await unendedRoleHolderIds(db, groupId, target.roleType, access.day);

  const matchOf = (row: ImportRow, input: ImportRowInput): UserRow | null => {
    const matchedId = nameMatches.get(row.row);
    return (typeof input.email === 'string' ? byEmail.get(lowerAscii(input.email)) : matchedId === undefined ? undefined : byId.get(matchedId)) ?? null;
  };
  // The right to change every matched person, read at once: one query per row made a file
  // joining 20,000 people into a group 20,000 round trips.
  const matchedIds = new Set<number>();
  for (const { row, input } of inputs) {
    const person = matchOf(row, input);
    if (person) matchedIds.add(Number(person.id));
  }
  const rights = await rightsToChange(db, access, [...matchedIds]);

  const planned: PlannedRow[] = [];
  const matchedRows = new Map<number, number>();
  for (const { row, input, invalid } of inputs) {
    const person = matchOf(row, input);
    const username = row.cells.username ?? '';
    const usernameDiffers = username !== '' && username !== person?.username;
    if (!person) {
      // Whom a row whose e-mail (or, matched by name, whose names or birthday) failed would match
      // is unknown: the rules that depend on it (a new person's names, the username) wait for the fix.
      const matchUnknown = invalid.has('email') || (typeof input.email !== 'string' && ['firstname', 'lastname', 'birthday'].some((field) => invalid.has(field)));
      if (matchUnknown) {
        planned.push({ row: row.row, input, person: null, changes: {}, joins: true });
        continue;
      }
      if (usernameDiffers) problems.add(row.row, importMessages.usernameNotImported);
      for (const field of ['firstname', 'lastname'] as const) {
        if (input[field] === undefined) problems.add(row.row, fieldMessages.required(field));
      }
      planned.push({ row: row.row, input, person: null, changes: {}, joins: true });
      continue;
    }
    const personId = Number(person.id);
    const changes = changesOf(input, person);
    const joins = !holders.has(personId);
    // A row that changes nobody matches an active holder of the role, whom the caller sees.
    const touches = Object.keys(changes).length > 0 || joins;
    const right = touches ? Boolean(rights.get(personId)) : true;
    const loginChanges = touches && changes.email !== undefined && !(await mayChangeLoginOf(db, access, { id: personId, hasLogin: hasLogin(person) }, rights.get(personId) ?? null));
    // The username of someone the caller may not change is not compared: the answer would tell it.
    if (usernameDiffers && right) problems.add(row.row, importMessages.usernameNotImported);
    const earlier = matchedRows.get(personId);
    if (earlier !== undefined) problems.add(row.row, importMessages.samePersonAsRow(earlier));
    else matchedRows.set(personId, row.row);
    if (!right || loginChanges) problems.add(row.row, importMessages.mayNotChange);
    // A membership starting today would overlap a future one of the same role.
    if (joins && unended.has(personId)) problems.add(row.row, ruleMessages.alreadyHasRole);
    planned.push({ row: row.row, input, person, changes, joins });
  }
  if (!problems.empty) throw errors.validation(problems.toFieldErrors());
  return planned;
}

function countsOf(planned: readonly PlannedRow[]): ImportCounts {
  const counts = { created: 0, updated: 0, unchanged: 0 };
  for (const plan of planned) counts[actionOf(plan)] += 1;
  return counts;
}

const actionOf = (plan: PlannedRow): ImportRowDetail['action'] =>
  plan.person === null ? 'created' : Object.keys(plan.changes).length > 0 ? 'updated' : 'unchanged';

/** What each row does, for `details=true`: a new person's given fields as [null, value], a match's changes as [old, new]. */
function detailsOf(planned: readonly PlannedRow[], newIds: ReadonlyMap<PlannedRow, number>): ImportRowDetail[] {
  return planned.map((plan) => {
    const changes: Record<string, [unknown, unknown]> = {};
    const { person } = plan;
    if (person === null) {
      for (const field of PERSON_FIELDS) {
        const value = plan.input[field];
        if (value !== undefined && value !== null) changes[field] = [null, value];
      }
    } else {
      for (const [field, value] of Object.entries(plan.changes) as [PersonField, unknown][]) {
        changes[field] = [stored(field, person), FLAGS.has(field) ? Boolean(value) : value];
      }
    }
    return { row: plan.row, action: actionOf(plan), person_id: person === null ? (newIds.get(plan) ?? null) : Number(person.id), changes };
  });
}

/**
 * Writes a checked plan. New people and memberships go in a few multi-row statements (one each
 * per 500 rows), not one round trip per row: on PostgreSQL 20,000 new people took 16 s row by row.
 * A matched person's changes differ from row to row and stay one statement each. The change
 * records are noted in the order of the file, as row-by-row writing noted them.
 */
async function applyImport(trx: TenantDb, access: Access, target: ImportTarget, planned: readonly PlannedRow[]): Promise<Map<PlannedRow, number>> {
  const now = toDbTimestamp(new Date());
  const updated = new Map<PlannedRow, UserRow>();
  for (const plan of planned) {
    if (plan.person !== null && Object.keys(plan.changes).length > 0) {
      updated.set(plan, await updateUserProfile(trx, Number(plan.person.id), plan.changes, now));
    }
  }
  const newcomers = planned.filter((plan) => plan.person === null);
  const newIds = await insertUsers(
    trx,
    newcomers.map(({ input }) => newUserRow({ ...input, firstname: input.firstname!, lastname: input.lastname! }, { username: null, email: input.email ?? null, password: null }, now)),
  );
  const personIds = new Map(newcomers.map((plan, index) => [plan, newIds[index]!]));
  const personIdOf = (plan: PlannedRow) => (plan.person === null ? personIds.get(plan)! : Number(plan.person.id));

  // A new person always joins; a matched one unless the plan (read in this same transaction)
  // found them holding the role already.
  const joining = planned.filter((plan) => plan.person === null || plan.joins);
  const membership = { group_id: Number(target.group.id), role_type: target.roleType, label: null, start_on: access.day, end_on: null };
  const membershipIds = await insertMemberships(trx, joining.map((plan) => ({ person_id: personIdOf(plan), ...membership })), now);

  let joined = 0;
  for (const plan of planned) {
    const personId = personIdOf(plan);
    const after = updated.get(plan);
    if (plan.person === null) noteCreated(trx, 'person', personId, { personId });
    else if (after) noteUpdated(trx, 'person', personId, personChanges(plan.person, after), { personId });
    if (plan.person === null || plan.joins) noteCreated(trx, 'membership', membershipIds[joined++]!, { personId });
  }  return personIds;
}

/**
 * After an import of this many rows or more, the tables it writes get fresh planner statistics
 * (`Storage.refreshStatistics`): for fewer, what the database knew still holds well enough.
 */
const ROWS_THAT_CHANGE_STATISTICS = 1_000;

/** The tables whose statistics an import written just now has made stale, if any. */
export const tablesToRefreshAfter = (file: ImportFile, options: { dryRun: boolean }): ('users' | 'memberships')[] =>
  !options.dryRun && file.rows.length >= ROWS_THAT_CHANGE_STATISTICS ? ['users', 'memberships'] : [];

/**
 * POST /people/import and `groupadmin people import`: all or nothing, in one
 * transaction, so that what was checked is what is written. A dry run checks and counts only.
 * With `details`, the answer also says what each row does (a dry run: new people without an id).
 */
export async function importPeople(
  db: TenantDb,
  access: Access,
  target: ImportTarget,
  file: ImportFile,
  options: { dryRun: boolean; details?: boolean },
): Promise<ImportCounts & { rows?: ImportRowDetail[] }> {
  // The change records are numbered at the very end: the import holds the tenant's sequence of
  // records (and with it the tenant's other writes) only for its last statements, not for its
  // whole length, and on PostgreSQL while its commit brings the people lists' order up to date
  // (member_order).
  return transact(db, actorOf(access), async (trx) => {
    const planned = await planImport(trx, access, target, file);
    const newIds = options.dryRun ? new Map<PlannedRow, number>() : await applyImport(trx, access, target, planned);
    const counts = countsOf(planned);
    return options.details === true ? { ...counts, rows: detailsOf(planned, newIds) } : counts;
  });
}
