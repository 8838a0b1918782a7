import Type, { type Static } from 'typebox';
import { PagingQuery } from '../../http/paging.js';
import { FormatParameter } from '../../http/download-format.js';
import { Timestamp } from '../../http/schemas.js';
import { toApiTimestamp } from '../../lib/time.js';
import { fieldMessages } from '../../errors.js';
import { checkItems, idOfItem, MOST_ITEMS, objectItemCheck, valueItemCheck } from '../../http/bulk.js';
import { compileObjectValidator, StoredText, type Validation } from '../../lib/validation.js';
import type { ParticipationItemRow } from './queries.js';
import { ROLES, STATES } from './states.js';

const Role = Type.Union([Type.Literal('participant'), Type.Literal('helper'), Type.Literal('leader')]);
const State = Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('waitlisted'), Type.Literal('rejected'), Type.Literal('cancelled')]);
// The schemas name every role and state of the state machine, no more.
const sameRoles: (typeof ROLES)[number] extends Static<typeof Role> ? true : never = true;
const sameStates: (typeof STATES)[number] extends Static<typeof State> ? true : never = true;
void sameRoles;
void sameStates;
const Notes = Type.Union([StoredText({ maxLength: 2000 }), Type.Null()]);
const GuardianContactSchema = Type.Object({
  id: Type.Integer(),
  firstname: Type.String(),
  lastname: Type.String(),
  phonenumber: Type.Union([Type.String(), Type.Null()]),
  phonenumber_mobile: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
});

/**
 * A participation, fields in this order. `notes` (allergies, medication) is
 * left out of the item for anyone but the event's managers, the person and their guardians.
 */
export const ParticipationSchema = Type.Object({
  id: Type.Integer(),
  event_id: Type.Integer(),
  person_id: Type.Integer(),
  role: Role,
  state: State,
  waitlist_position: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  attended: Type.Union([Type.Boolean(), Type.Null()]),
  notes: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  person: Type.Object({
    id: Type.Integer(),
    firstname: Type.String(),
    lastname: Type.String(),
    // With include=details (managers): what a camp needs to know of each participant.
    is_vegetarian: Type.Optional(Type.Boolean()),
    can_swimm: Type.Optional(Type.Boolean()),
    birthday: Type.Optional(Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()])),
    guardians: Type.Optional(Type.Array(GuardianContactSchema, { description: 'Their numbers, for emergencies at camp' })),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ApiParticipation = Static<typeof ParticipationSchema>;

export const NewParticipationSchema = Type.Object({
  person_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  role: Type.Optional(Role),
  notes: Type.Optional(Notes),
});
export type NewParticipation = Static<typeof NewParticipationSchema>;

export const ParticipationUpdateSchema = Type.Object({
  state: Type.Optional(State),
  role: Type.Optional(Role),
  notes: Type.Optional(Notes),
  attended: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
});
export type ParticipationUpdate = Static<typeof ParticipationUpdateSchema>;

/** The forms of the participant list: JSON, and for managers CSV and XLSX files. */
export const PARTICIPATION_FORMATS = ['json', 'csv', 'xlsx'] as const;

export const EventParticipationsQuery = Type.Object(
  {
    state: Type.Optional(State),
    role: Type.Optional(Role),
    sort: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('created')], { description: 'Default: by state (accepted, pending, waitlisted by place, rejected, cancelled), then name' })),
    include: Type.Optional(Type.Literal('details', { description: "Managers: each person's answers for the kitchen and the lifeguard, birthday and guardians; the first page adds `summary`" })),
    format: FormatParameter(PARTICIPATION_FORMATS),
    ...PagingQuery,
  },
  { additionalProperties: false },
);
export type EventParticipationFilters = Static<typeof EventParticipationsQuery>;

export const PersonParticipationsQuery = Type.Object({ ...PagingQuery }, { additionalProperties: false });

const Name = Type.Object({ id: Type.Integer(), firstname: Type.String(), lastname: Type.String() });

/** GET /events/{id}/summary: counts over the event's participations, and the lifeguard's list. */
export const SummarySchema = Type.Object({
  accepted: Type.Integer({ description: 'Accepted participants (role participant)' }),
  pending: Type.Integer(),
  waitlisted: Type.Integer(),
  cancelled: Type.Integer(),
  rejected: Type.Integer(),
  helpers: Type.Integer({ description: 'Accepted helpers' }),
  leaders: Type.Integer({ description: 'Accepted leaders' }),
  vegetarians: Type.Integer({ description: 'Over every accepted participation' }),
  non_swimmers: Type.Array(Name, { description: 'Every accepted participation whose person cannot swim' }),
  attended: Type.Integer({ description: 'Accepted participations marked attended' }),
});

/** What include=details adds to a participant (managers). */
export interface ParticipantDetails {
  is_vegetarian: boolean;
  can_swimm: boolean;
  birthday: string | null;
  guardians: { id: number; firstname: string; lastname: string; phonenumber: string | null; phonenumber_mobile: string | null; email: string | null }[];
}

/** A participation with its person's details after their name (include=details). */
export function withDetails(item: ApiParticipation, details: ParticipantDetails): ApiParticipation {
  return { ...item, person: { ...item.person, ...details } };
}

export function toApiParticipation(row: ParticipationItemRow, showNotes: boolean): ApiParticipation {
  const item: ApiParticipation = {
    id: Number(row.id),
    event_id: Number(row.event_id),
    person_id: Number(row.person_id),
    role: row.role,
    state: row.state,
    waitlist_position: row.waitlist_position === null ? null : Number(row.waitlist_position),
    attended: row.attended === null ? null : Boolean(row.attended),
    person: { id: Number(row.person_id), firstname: row.p_firstname, lastname: row.p_lastname },
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
  if (!showNotes) return item;
  // notes keeps its place after attended.
  const { person, created_at, updated_at, ...head } = item;
  return { ...head, notes: row.notes, person, created_at, updated_at };
}

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** POST /events/{id}/participations, the bulk form: several people at once (managers). */
export const BulkRegistrationSchema = Type.Object({
  person_ids: Type.Array(Id, { minItems: 1, maxItems: MOST_ITEMS, uniqueItems: true, description: 'Registered in this order, as single registrations would be' }),
  role: Type.Optional(Role),
});
export type BulkRegistration = Static<typeof BulkRegistrationSchema>;

/** PATCH /events/{id}/participations: several participations of the event changed at once (managers). */
const CallOffMessage = Type.Union([StoredText({ maxLength: 2000 }), Type.Null()], {
  description: 'Why (calling an event off, say): quoted in the notices of this request to the people concerned',
});

export const ParticipationChangeListSchema = Type.Object({
  participations: Type.Array(Type.Object({ id: Id, ...ParticipationUpdateSchema.properties }), { minItems: 1, maxItems: MOST_ITEMS }),
  message: Type.Optional(CallOffMessage),
});
export type ParticipationChangeList = Static<typeof ParticipationChangeListSchema>;

const checkSingle = compileObjectValidator<NewParticipation>(NewParticipationSchema);
const checkBulkRest = compileObjectValidator<Omit<BulkRegistration, 'person_ids'>>(Type.Object({ role: Type.Optional(Role) }));
const checkPersonId = valueItemCheck(Id);
const checkChange = objectItemCheck(ParticipationChangeListSchema.properties.participations.items);

/**
 * The body of POST /events/{id}/participations as the route reads it: the single form is checked
 * here; a body that names `person_ids` is the bulk form, checked by the handler once the caller is
 * known to manage the event (the request as a whole is refused before its list is looked at).
 */
export function checkRegistrationBody(body: unknown): Validation<NewParticipation | Record<string, unknown>> {
  const given = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  return 'person_ids' in given ? { ok: true, value: given } : checkSingle(body);
}

/** The bulk form of POST /events/{id}/participations; `person_id` beside `person_ids` is 422 on `person_ids`. */
export function checkBulkRegistration(given: Record<string, unknown>): Validation<BulkRegistration> {
  if ('person_id' in given) return { ok: false, fieldErrors: { person_ids: [fieldMessages.prohibits('person_ids', 'person_id')] } };
  const ids = checkItems(given, 'person_ids', (id) => id, checkPersonId);
  const rest = checkBulkRest(given);
  const fieldErrors = { ...ids.problems, ...(rest.ok ? {} : rest.fieldErrors) };
  if (Object.keys(fieldErrors).length > 0) return { ok: false, fieldErrors };
  return { ok: true, value: { person_ids: ids.items as number[], ...(rest.ok ? rest.value : {}) } };
}

/** The body of PATCH /events/{id}/participations. */
const checkMessage = compileObjectValidator<{ message?: string | null }>(Type.Object({ message: Type.Optional(CallOffMessage) }));

export function checkChangesBody(body: unknown): Validation<ParticipationChangeList> {
  const given = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const items = checkItems(given, 'participations', idOfItem, checkChange);
  const message = checkMessage(given);
  const fieldErrors = { ...items.problems, ...(message.ok ? {} : message.fieldErrors) };
  if (Object.keys(fieldErrors).length > 0) return { ok: false, fieldErrors };
  return { ok: true, value: { participations: items.items as ParticipationChangeList['participations'], ...(message.ok ? message.value : {}) } };
}
