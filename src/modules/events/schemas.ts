import Type, { type Static } from 'typebox';
import { PagingQuery } from '../../http/paging.js';
import { Timestamp } from '../../http/schemas.js';
import { toApiTimestamp, toApiTimestampOrNull } from '../../lib/time.js';
import { StoredText } from '../../lib/validation.js';
import type { EventRow } from '../../db/types.js';

/** An event, fields in this order. */
export const EventSchema = Type.Object({
  id: Type.Integer(),
  group_id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  location: Type.Union([Type.String(), Type.Null()]),
  starts_at: Timestamp,
  ends_at: Timestamp,
  registration_opens_at: Type.Union([Timestamp, Type.Null()]),
  registration_closes_at: Type.Union([Timestamp, Type.Null()]),
  capacity: Type.Union([Type.Integer(), Type.Null()]),
  waiting_list: Type.Boolean(),
  requires_approval: Type.Boolean(),
  participants_count: Type.Integer({ description: 'Accepted participations of role participant: what capacity limits' }),
  waitlist_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ApiEvent = Static<typeof EventSchema>;

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Moment = Type.String({ format: 'date-time', maxLength: 64 });
const NullableMoment = Type.Union([Moment, Type.Null()]);
const Capacity = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()]);
const Description = Type.Union([StoredText({ maxLength: 10_000 }), Type.Null()]);
const Location = Type.Union([StoredText({ maxLength: 255 }), Type.Null()]);
const Name = StoredText({ minLength: 1, maxLength: 255 });

export const NewEventSchema = Type.Object({
  group_id: Id,
  name: Name,
  description: Type.Optional(Description),
  location: Type.Optional(Location),
  starts_at: Moment,
  ends_at: Moment,
  registration_opens_at: Type.Optional(NullableMoment),
  registration_closes_at: Type.Optional(NullableMoment),
  capacity: Type.Optional(Capacity),
  waiting_list: Type.Optional(Type.Boolean()),
  requires_approval: Type.Optional(Type.Boolean()),
});
export type NewEvent = Static<typeof NewEventSchema>;

export const EventUpdateSchema = Type.Object({
  group_id: Type.Optional(Id),
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  location: Type.Optional(Location),
  starts_at: Type.Optional(Moment),
  ends_at: Type.Optional(Moment),
  registration_opens_at: Type.Optional(NullableMoment),
  registration_closes_at: Type.Optional(NullableMoment),
  capacity: Type.Optional(Capacity),
  waiting_list: Type.Optional(Type.Boolean()),
  requires_approval: Type.Optional(Type.Boolean()),
});
export type EventUpdate = Static<typeof EventUpdateSchema>;

export const EventListQuery = Type.Object(
  {
    group_id: Type.Optional(Id),
    below: Type.Optional(Type.Boolean()),
    from: Type.Optional(Moment),
    to: Type.Optional(Moment),
    q: Type.Optional(StoredText({ minLength: 1, maxLength: 255 })),
    ...PagingQuery,
  },
  { additionalProperties: false },
);
export type EventListFilters = Static<typeof EventListQuery>;

export function toApiEvent(row: EventRow): ApiEvent {
  return {
    id: Number(row.id),
    group_id: Number(row.group_id),
    name: row.name,
    description: row.description,
    location: row.location,
    starts_at: toApiTimestamp(row.starts_at),
    ends_at: toApiTimestamp(row.ends_at),
    registration_opens_at: toApiTimestampOrNull(row.registration_opens_at),
    registration_closes_at: toApiTimestampOrNull(row.registration_closes_at),
    capacity: row.capacity === null ? null : Number(row.capacity),
    waiting_list: Boolean(row.waiting_list),
    requires_approval: Boolean(row.requires_approval),
    participants_count: Number(row.participants_count),
    waitlist_count: Number(row.waitlist_count),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}
