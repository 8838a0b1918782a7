import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { groupAmong } from '../../db/conditions.js';
import type { TenantDatabase } from '../../db/types.js';

// The rule of who sees an event, in SQL: the events module's lists and the participations
// module's lists (participations only in events the caller sees) use the same condition.

/**
 * Who sees an event, as the rule's parts a query can use: whoever reads its group, the people
 * registered for it and their guardians, and the members of its group or of a group below it
 * (with their guardians).
 */
export interface EventViewer {
  /** The caller and their wards: their participations make an event visible. */
  personIds: number[];
  /** Groups at or above an active membership of those people. */
  groupIdsAtOrAbove: number[];
  /** Where the caller holds at least `read`. */
  readable: { subtreePaths: string[]; groupIds: number[] };
}

/** A query over events `e` joined with their groups `g`. */
export type EventQuery = ExpressionBuilder<TenantDatabase & { e: TenantDatabase['events']; g: TenantDatabase['groups'] }, 'e' | 'g'>;

/** The events (alias `e`, group `g`) the viewer sees, as one condition. */
export function eventVisibleTo(eb: EventQuery, viewer: EventViewer): Expression<SqlBool> {
  const parts = [
    groupAmong('g', viewer.readable.subtreePaths, viewer.readable.groupIds),
    eb.exists(
      eb
        .selectFrom('participations as vp')
        .select(sql.lit(1).as('one'))
        .whereRef('vp.event_id', '=', 'e.id')
        .where('vp.person_id', 'in', viewer.personIds),
    ),
  ];
  if (viewer.groupIdsAtOrAbove.length > 0) parts.push(eb('e.group_id', 'in', viewer.groupIdsAtOrAbove));
  return eb.or(parts);
}
