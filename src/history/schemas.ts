import Type, { type Static } from 'typebox';
import type { HistoryRow } from '../recording/records.js';
import { ChangeSchema, toApiChange } from '../modules/changes/schemas.js';

/** A change record as a history shows it: the feed's fields, its actor, and what an update changed. */
export const HistoryItemSchema = Type.Object({
  ...ChangeSchema.properties,
  actor: Type.Union([Type.Object({ id: Type.Integer(), firstname: Type.String(), lastname: Type.String() }), Type.Null()], {
    description: 'Who made the change; null for the command line, the Laravel import, or an erased person',
  }),
  changes: Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2 }), { description: 'For an update: {field: [old, new]}' }),
});

export const toApiHistoryItem = (row: HistoryRow): Static<typeof HistoryItemSchema> => ({
  ...toApiChange(row),
  actor: row.actor_id === null || row.actor_firstname === null ? null : { id: Number(row.actor_id), firstname: row.actor_firstname, lastname: row.actor_lastname ?? '' },
  changes: JSON.parse(row.changes) as Record<string, unknown[]>,
});
