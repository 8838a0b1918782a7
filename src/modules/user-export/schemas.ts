import Type, { type Static } from 'typebox';
import { MembershipSchema, toApiMembership } from '../memberships/schemas.js';
import { PersonSchema, toApiPerson } from '../people/schemas.js';
import { TokenListItemSchema } from '../tokens/schemas.js';
import { ParticipationSchema, toApiParticipation } from '../participations/schemas.js';
import type { PersonalData } from './rules.js';
import { mayReadNotes } from '../participations/notes.js';
import { HistoryItemSchema, toApiHistoryItem } from '../changes/schemas.js';
import { Timestamp } from '../../http/schemas.js';
import { toApiTimestamp } from '../../lib/time.js';

/** A membership with the name of its group, after the membership's own fields. */
const ExportedMembershipSchema = Type.Object({ ...MembershipSchema.properties, group_name: Type.String() });

/** A guardian or ward: who they are, not their contact data (that is theirs, not the caller's). */
const LinkedPersonSchema = Type.Object({ id: Type.Integer(), firstname: Type.String(), lastname: Type.String() });
const linked = (row: { id: number; firstname: string; lastname: string }) => ({ id: Number(row.id), firstname: row.firstname, lastname: row.lastname });

/** GET /user/export's `export`: everything kept about the caller. */
export const PersonalDataSchema = Type.Object({
  person: PersonSchema,
  memberships: Type.Array(ExportedMembershipSchema),
  guardians: Type.Array(LinkedPersonSchema),
  wards: Type.Array(LinkedPersonSchema),
  /** Their own participations, notes included, each with its event's name. */
  participations: Type.Array(Type.Object({ ...ParticipationSchema.properties, notes: Type.Union([Type.String(), Type.Null()]), event_name: Type.String() })),
  tokens: Type.Array(TokenListItemSchema),
  /** The change records of their person, memberships and participations, newest first. */
  history: Type.Array(HistoryItemSchema),
  /** The leaders' messages they received, newest first. */
  messages: Type.Array(Type.Object({ id: Type.Integer(), subject: Type.String(), created_at: Timestamp })),
});
export type ApiPersonalData = Static<typeof PersonalDataSchema>;

export const toApiPersonalData = (data: PersonalData): ApiPersonalData => ({
  person: toApiPerson(data.person),
  memberships: data.memberships.map(({ membership, groupName }) => ({ ...toApiMembership(membership), group_name: groupName })),
  guardians: data.guardians.map(linked),
  wards: data.wards.map(linked),
  participations: data.participations.map((row) => ({ ...toApiParticipation(row, mayReadNotes({ manager: false, ownOrWard: true })), notes: row.notes, event_name: row.event_name })),
  tokens: data.tokens,
  history: data.history.map(toApiHistoryItem),
  messages: data.messages.map((message) => ({ id: Number(message.id), subject: message.subject, created_at: toApiTimestamp(message.created_at) })),
});
