import Type, { type Static } from 'typebox';
import type { TenantDb, UserRow } from '../../db/types.js';
import { Timestamp } from '../../http/schemas.js';
import { readAllPages } from '../../lib/read-all-pages.js';
import { toApiTimestamp } from '../../lib/time.js';
import { viewerOf } from '../events/rules.js';
import { membershipsWithGroupNames } from '../memberships/rules.js';
import { NamedMembershipSchema, toApiNamedMembership } from '../memberships/schemas.js';
import { mayReadNotes } from '../participations/notes.js';
import { listPersonParticipations } from '../participations/rules.js';
import { ParticipationSchema, toApiParticipation } from '../participations/schemas.js';
import { atLeast } from '../permissions/levels.js';
import { holdsOnPerson, isRootAdmin, mayChangeLoginOf, rightToChange, type Access } from '../permissions/rules.js';
import { hasLogin } from '../users/rules.js';
import { mayInvite } from '../accounts/who-may-invite.js';
import { listGuardians, listWardsSeenBy } from './queries.js';
import { PersonSchema, toApiPerson } from './schemas.js';

/**
 * GET /people/{id}?include=: what a person's page shows besides the person, in one request
 * (the app's page views stay within two requests). In this order, only those asked for.
 */
export const PERSON_INCLUDES = ['memberships', 'guardians', 'wards', 'participations', 'can'] as const;
export type PersonInclude = (typeof PERSON_INCLUDES)[number];

/** A participation of the person, with its event's name and times (the page lists them by event). */
const PersonParticipationSchema = Type.Object({
  ...ParticipationSchema.properties,
  event: Type.Object({ id: Type.Integer(), name: Type.String(), starts_at: Timestamp, ends_at: Timestamp }),
});

/** What this caller may do to the person: the buttons a person's page offers. */
const AbilitiesSchema = Type.Object({
  update: Type.Boolean({ description: 'PATCH /people/{id} (a guardian: the profile only)' }),
  delete: Type.Boolean({ description: 'DELETE /people/{id} (erasure)' }),
  change_login: Type.Boolean({ description: 'a new `username` or `email`' }),
  set_password: Type.Boolean({ description: '`password` in PATCH /people/{id}' }),
  invite: Type.Boolean({ description: 'an invitation by e-mail (a person with an address and no login)' }),
  add_guardian: Type.Boolean({ description: 'POST and DELETE /people/{id}/guardians' }),
});

export const PersonIncludesSchema = Type.Object({
  memberships: Type.Optional(Type.Array(NamedMembershipSchema, { description: 'Every membership: active, future, ended; by id' })),
  guardians: Type.Optional(Type.Array(PersonSchema, { description: 'As GET /people/{id}/guardians' })),
  wards: Type.Optional(Type.Array(PersonSchema, { description: 'The wards the caller sees, by name' })),
  participations: Type.Optional(Type.Array(PersonParticipationSchema, { description: 'In the events the caller sees, by id (needs `events:read`)' })),
  can: Type.Optional(AbilitiesSchema),
});
type PersonIncludes = Static<typeof PersonIncludesSchema>;

/** The included lists for P, read for this caller; `participations` needs `events:read` (the route checks it). */
export async function personIncludes(db: TenantDb, access: Access, person: UserRow, wanted: ReadonlySet<PersonInclude>): Promise<PersonIncludes> {
  const personId = Number(person.id);
  const included: PersonIncludes = {};
  // Filled in the list's order, so that the answer's keys come in that order.
  for (const include of PERSON_INCLUDES) {
    if (!wanted.has(include)) continue;
    if (include === 'memberships') included.memberships = (await membershipsWithGroupNames(db, personId)).map(toApiNamedMembership);
    if (include === 'guardians') included.guardians = (await listGuardians(db, access, personId)).map(toApiPerson);
    if (include === 'wards') included.wards = (await listWardsSeenBy(db, access, personId)).map(toApiPerson);
    if (include === 'participations') included.participations = await participationsOf(db, access, personId);
    if (include === 'can') included.can = await abilitiesOn(db, access, person);
  }
  return included;
}

const PAGE = 500;

async function participationsOf(db: TenantDb, access: Access, personId: number) {
  const viewer = await viewerOf(db, access);
  const rows = await readAllPages((after, size) => listPersonParticipations(db, personId, viewer, after, size), (row) => Number(row.id), PAGE);
  const ownOrWard = viewer.personIds.includes(personId);
  return rows.map((row) => ({
    ...toApiParticipation(row, mayReadNotes({ manager: atLeast(access.on(row.g_path), 'write'), ownOrWard })),
    event: { id: Number(row.event_id), name: row.event_name, starts_at: toApiTimestamp(row.event_starts_at), ends_at: toApiTimestamp(row.event_ends_at) },
  }));
}

async function abilitiesOn(db: TenantDb, access: Access, person: UserRow): Promise<NonNullable<PersonIncludes['can']>> {
  const personId = Number(person.id);
  const right = await rightToChange(db, access, personId);
  const login = hasLogin(person);
  const changesLogin = right !== null && (await mayChangeLoginOf(db, access, { id: personId, hasLogin: login }, right));
  return {
    update: right !== null,
    delete: isRootAdmin(access),
    change_login: changesLogin,
    set_password: isRootAdmin(access),
    // Who may invite P (accounts/who-may-invite.ts), for P who can be invited: active, an address, no login.
    invite: !login && person.email !== null && Boolean(person.is_active) && right === 'full' && (await mayInvite(db, access, person)),
    add_guardian: await holdsOnPerson(db, access, personId, 'write'),
  };
}
