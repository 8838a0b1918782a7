import Type, { type Static } from 'typebox';
import { PagingQuery } from '../../http/paging.js';
import { EventSchema } from '../events/schemas.js';

const Moment = Type.String({ format: 'date-time', maxLength: 64 });
const State = Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('waitlisted'), Type.Literal('rejected')]);

export const AgendaQuery = Type.Object(
  {
    from: Type.Optional({ ...Moment, description: 'Events that end at or after this moment; default: a day ago' }),
    to: Type.Optional({ ...Moment, description: 'Events that start at or before this moment; default: 90 days from now' }),
    ...PagingQuery,
  },
  { additionalProperties: false },
);
export type AgendaFilters = Static<typeof AgendaQuery>;

/** One event of the family's agenda, fields in this order. */
export const AgendaItemSchema = Type.Object({
  event: EventSchema,
  family: Type.Array(
    Type.Object({
      person_id: Type.Integer(),
      participation_id: Type.Integer(),
      state: State,
      waitlist_position: Type.Union([Type.Integer(), Type.Null()]),
    }),
    { description: "The caller's and the wards' participations in the event (not the cancelled ones), in name order" },
  ),
  may_register: Type.Array(Type.Integer(), {
    description: 'Those of the caller and the wards who may register now (the event is open to them, they have no live participation, registration is open; a full event still lists them), in name order',
  }),
});
export type AgendaItem = Static<typeof AgendaItemSchema>;
