import type { Kysely } from 'kysely';
import type { Readable } from 'node:stream';
import type { TenantDatabase } from '../../db/types.js';
import { csvStream, type Cell } from '../../lib/csv.js';
import type { CellKind, SheetColumn } from '../../lib/xlsx.js';
import type { Download, FileFormat } from '../../http/download-format.js';
import type { SortKey } from '../../http/paging.js';
import { guardiansOfWards, type GuardianContact } from '../permissions/rules.js';
import { listEventParticipations, participantKey, type ParticipantOrder, type ParticipationFilters } from './queries.js';

/** The columns of the participant list's CSV, in this order. */
export const PARTICIPANT_COLUMNS = [
  'id', 'person_id', 'firstname', 'lastname', 'role', 'state', 'waitlist_position', 'attended',
  'is_vegetarian', 'can_swimm', 'email', 'phonenumber', 'phonenumber_mobile', 'notes',
] as const;

const KINDS = {
  id: 'number', person_id: 'number', firstname: 'text', lastname: 'text', role: 'text', state: 'text', waitlist_position: 'number',
  attended: 'boolean', is_vegetarian: 'boolean', can_swimm: 'boolean', email: 'text', phonenumber: 'text', phonenumber_mobile: 'text', notes: 'text',
} as const satisfies Record<(typeof PARTICIPANT_COLUMNS)[number], CellKind>;

/**
 * The XLSX file's columns: the CSV's, then each participant's guardians with their numbers (for
 * emergencies at camp; the CSV keeps its columns as they are).
 */
const XLSX_COLUMNS: readonly SheetColumn[] = [...PARTICIPANT_COLUMNS.map((name) => ({ name, kind: KINDS[name] })), { name: 'guardians', kind: 'text' }];

/** Rows read a page at a time, so a list of any length streams in constant memory. */
const PAGE_ROWS = 500;

/** A guardian as the XLSX file shows them: the name, then the numbers there are. */
export function guardianText(guardian: GuardianContact): string {
  const numbers = [guardian.phonenumber, guardian.phonenumber_mobile].filter((number) => number !== null && number !== '');
  const name = `${guardian.firstname} ${guardian.lastname}`;
  return numbers.length === 0 ? name : `${name} (${numbers.join(', ')})`;
}

/**
 * Every participation of the event that `filters` select after `from`, in the list's order, one
 * row each, read page by page (keyset); `withGuardians` adds the guardians' cell (one more
 * statement a page).
 */
async function* participantRows(
  db: Kysely<TenantDatabase>,
  eventId: number,
  filters: ParticipationFilters,
  order: ParticipantOrder,
  from: SortKey | null,
  withGuardians: boolean,
): AsyncGenerator<Cell[]> {
  let after = from;
  for (;;) {
    const page = await listEventParticipations(db, eventId, filters, order, after, PAGE_ROWS);
    const shown = page.slice(0, PAGE_ROWS);
    const guardians = withGuardians ? await guardiansOfWards(db, shown.map((row) => Number(row.person_id))) : null;
    for (const row of shown) {
      const cells: Cell[] = [
        Number(row.id), Number(row.person_id), row.p_firstname, row.p_lastname, row.role, row.state,
        row.waitlist_position === null ? null : Number(row.waitlist_position),
        row.attended === null ? null : Boolean(row.attended),
        Boolean(row.p_is_vegetarian), Boolean(row.p_can_swimm), row.p_email, row.p_phonenumber, row.p_phonenumber_mobile, row.notes,
      ];
      if (guardians !== null) cells.push((guardians.get(Number(row.person_id)) ?? []).map(guardianText).join('; ') || null);
      yield cells;
    }
    if (page.length <= PAGE_ROWS) return;
    after = participantKey(page[PAGE_ROWS - 1]!, order);
  }
}

/** Every participation of the event that `filters` select after `from`, in the list's order, as CSV. */
export function participantsCsv(
  db: Kysely<TenantDatabase>,
  eventId: number,
  filters: ParticipationFilters,
  order: ParticipantOrder,
  from: SortKey | null = null,
): Promise<Readable> {
  return csvStream(PARTICIPANT_COLUMNS, participantRows(db, eventId, filters, order, from, false));
}

/**
 * The participant list as a file: the CSV as it always was (`event-<id>-participants.csv`), or
 * the XLSX (`participations-<id>.xlsx`) with the guardians after the CSV's columns.
 */
export function participantsDownload(
  db: Kysely<TenantDatabase>,
  eventId: number,
  filters: ParticipationFilters,
  order: ParticipantOrder,
  from: SortKey | null,
  format: FileFormat,
): Download {
  const xlsx = format === 'xlsx';
  return {
    name: xlsx ? `participations-${eventId}` : `event-${eventId}-participants`,
    sheet: 'Participations',
    columns: xlsx ? XLSX_COLUMNS : PARTICIPANT_COLUMNS.map((name) => ({ name, kind: KINDS[name] })),
    rows: participantRows(db, eventId, filters, order, from, xlsx),
  };
}
