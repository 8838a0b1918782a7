import type { Kysely } from 'kysely';
import type { Readable } from 'node:stream';
import type { TenantDatabase } from '../../db/types.js';
import { csvStream, type Cell } from '../../lib/csv.js';
import type { SortKey } from '../../http/paging.js';
import { listEventParticipations, participantKey, type ParticipantOrder, type ParticipationFilters } from './queries.js';

/** The columns of the participant list's CSV, in this order. */
export const PARTICIPANT_COLUMNS = [
  'id', 'person_id', 'firstname', 'lastname', 'role', 'state', 'waitlist_position', 'attended',
  'is_vegetarian', 'can_swimm', 'email', 'phonenumber', 'phonenumber_mobile', 'notes',
] as const;

/** Rows read a page at a time, so a list of any length streams in constant memory. */
const PAGE_ROWS = 500;

/** Every participation of the event that `filters` select after `from`, in the list's order, as CSV, read page by page (keyset). */
export function participantsCsv(
  db: Kysely<TenantDatabase>,
  eventId: number,
  filters: ParticipationFilters,
  order: ParticipantOrder,
  from: SortKey | null = null,
): Promise<Readable> {
  async function* rows(): AsyncGenerator<Cell[]> {
    let after = from;
    for (;;) {
      const page = await listEventParticipations(db, eventId, filters, order, after, PAGE_ROWS);
      for (const row of page.slice(0, PAGE_ROWS)) {
        yield [
          Number(row.id), Number(row.person_id), row.p_firstname, row.p_lastname, row.role, row.state,
          row.waitlist_position === null ? null : Number(row.waitlist_position),
          row.attended === null ? null : Boolean(row.attended),
          Boolean(row.p_is_vegetarian), Boolean(row.p_can_swimm), row.p_email, row.p_phonenumber, row.p_phonenumber_mobile, row.notes,
        ];
      }
      if (page.length <= PAGE_ROWS) return;
      after = participantKey(page[PAGE_ROWS - 1]!, order);
    }
  }
  return csvStream(PARTICIPANT_COLUMNS, rows());
}
