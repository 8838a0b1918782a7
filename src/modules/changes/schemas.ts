import Type, { type Static } from 'typebox';
import { toApiTimestamp } from '../../lib/time.js';
import type { FeedRecord, HistoryRow } from '../../recording/records.js';

export const MAX_FEED_LIMIT = 1000;
export const DEFAULT_FEED_LIMIT = 100;

export const ChangesQuery = Type.Object(
  {
    after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'The `next_after` of the page before; default: from the oldest record kept' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FEED_LIMIT, description: `1-${MAX_FEED_LIMIT}, default ${DEFAULT_FEED_LIMIT}` })),
  },
  { additionalProperties: false },
);
export type ChangesQuery = Static<typeof ChangesQuery>;

export const Entity = Type.Union([
  Type.Literal('person'),
  Type.Literal('group'),
  Type.Literal('membership'),
  Type.Literal('guardianship'),
  Type.Literal('role_type'),
  Type.Literal('event'),
  Type.Literal('participation'),
]);

export const ChangeSchema = Type.Object({
  seq: Type.Integer(),
  entity: Entity,
  entity_id: Type.Union([Type.Integer(), Type.String()], { description: "The id; a role type's key; a guardianship's ward" }),
  action: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]),
  at: Type.String({ format: 'date-time' }),
});

/** A record as the feed shows it: ids as JSON integers, a role type's key as text. */
export const toApiChange = (record: FeedRecord): Static<typeof ChangeSchema> => ({
  seq: Number(record.seq),
  entity: record.entity as Static<typeof Entity>,
  entity_id: record.entity === 'role_type' ? record.entity_id : Number(record.entity_id),
  action: record.action as 'created' | 'updated' | 'deleted',
  at: toApiTimestamp(record.at),
});

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
