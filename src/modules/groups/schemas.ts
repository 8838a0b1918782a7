import Type, { type Static } from 'typebox';
import { PagingQuery } from '../../http/paging.js';
import { Timestamp } from '../../http/schemas.js';
import { toApiTimestamp } from '../../lib/time.js';
import { StoredText } from '../../lib/validation.js';
import type { GroupRow } from '../../db/types.js';

/** A group, fields in this order. */
export const GroupSchema = Type.Object({
  id: Type.Integer(),
  parent_id: Type.Union([Type.Integer(), Type.Null()]),
  name: Type.String(),
  kind: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ApiGroup = Static<typeof GroupSchema>;

const GroupId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Name = StoredText({ minLength: 1, maxLength: 255 });
const Kind = StoredText({ maxLength: 64 });
const Description = Type.Union([StoredText({ maxLength: 10_000 }), Type.Null()]);

export const NewGroupSchema = Type.Object({ parent_id: GroupId, name: Name, kind: Type.Optional(Kind), description: Type.Optional(Description) });
export type NewGroup = Static<typeof NewGroupSchema>;

export const GroupUpdateSchema = Type.Object({
  name: Type.Optional(Name),
  kind: Type.Optional(Kind),
  description: Type.Optional(Description),
  parent_id: Type.Optional(Type.Union([GroupId, Type.Null()])),
});
export type GroupUpdate = Static<typeof GroupUpdateSchema>;

export const GroupListQuery = Type.Object(
  {
    parent_id: Type.Optional(GroupId),
    below: Type.Optional(GroupId),
    q: Type.Optional(StoredText({ maxLength: 255 })),
    ...PagingQuery,
  },
  { additionalProperties: false },
);
export type GroupListFilters = Static<typeof GroupListQuery>;

export function toApiGroup(row: GroupRow): ApiGroup {
  return {
    id: Number(row.id),
    parent_id: row.parent_id === null ? null : Number(row.parent_id),
    name: row.name,
    kind: row.kind,
    description: row.description,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/** The ids from the root down to the group's parent, read from its materialised path. */
export const ancestorsOf = (row: Pick<GroupRow, 'path'>): number[] => row.path.split('/').filter(Boolean).map(Number).slice(0, -1);
