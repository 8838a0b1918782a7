import { once } from 'node:events';
import type { Command } from 'commander';
import type { SortKey } from '../http/paging.js';
import { toApiTimestamp } from '../lib/time.js';
import { requireVisibleEvent, viewerOf, eventSortKey, listVisibleEvents } from '../modules/events/rules.js';
import { requireGroupById } from '../modules/memberships/rules.js';
import { participantsCsv } from '../modules/participations/csv.js';
import { operatorAccess } from '../modules/permissions/rules.js';
import { openTenant, withStorage } from './context.js';
import { idOption } from './groups.js';
import { listEventParticipations, participantKey } from '../modules/participations/rules.js';

/** The events of a tenant and an event's participants, for an operator. */

const PAGE_ROWS = 200;
const line = (...cells: (string | number | null)[]) => process.stdout.write(`${cells.map((cell) => cell ?? '-').join('\t')}\n`);

export function registerEventCommands(program: Command): void {
  const event = program.command('event').description('list events and their participants');

  event
    .command('list <tenant>')
    .description('list events by start, one per line: id, group id, starts at, ends at, participants/capacity, waitlisted, name (tab-separated)')
    .option('--group <id>', 'only the events of this group')
    .action((tenant: string, options: { group?: string }) =>
      withStorage(async (storage) => {
        const { db, today } = await openTenant(storage, tenant);
        const viewer = await viewerOf(db, await operatorAccess(db, today));
        const selection = options.group === undefined ? {} : { group: { ...(await groupOf(db, idOption(options.group, '--group'))), below: false } };
        let after: SortKey | null = null;
        for (;;) {
          const rows = await listVisibleEvents(db, viewer, selection, after, PAGE_ROWS);
          for (const row of rows.slice(0, PAGE_ROWS)) {
            const capacity = row.capacity === null ? 'unlimited' : Number(row.capacity);
            line(Number(row.id), Number(row.group_id), toApiTimestamp(row.starts_at), toApiTimestamp(row.ends_at), `${Number(row.participants_count)}/${capacity}`, Number(row.waitlist_count), row.name);
          }
          if (rows.length <= PAGE_ROWS) return;
          after = eventSortKey(rows[PAGE_ROWS - 1]!);
        }
      }),
    );

  event
    .command('participants <tenant> <event-id>')
    .description("list an event's participations, one per line: id, person id, role, state, waitlist position, lastname, firstname; or with --csv the manager's CSV file")
    .option('--csv', 'print the CSV file of GET /api/events/{id}/participations with Accept: text/csv')
    .action((tenant: string, eventId: string, options: { csv?: boolean }) =>
      withStorage(async (storage) => {
        const { db, today } = await openTenant(storage, tenant);
        const { event: found } = await requireVisibleEvent(db, await operatorAccess(db, today), idOption(eventId, '<event-id>'));
        const id = Number(found.id);
        if (options.csv) {
          const csv = await participantsCsv(db, id, {}, 'state');
          csv.pipe(process.stdout, { end: false });
          await once(csv, 'end');
          return;
        }
        // In the list's order, as the API's: by state, the waiting list in its order, then by name.
        let after: SortKey | null = null;
        for (;;) {
          const rows = await listEventParticipations(db, id, {}, 'state', after, PAGE_ROWS);
          for (const row of rows.slice(0, PAGE_ROWS)) {
            line(Number(row.id), Number(row.person_id), row.role, row.state, row.waitlist_position === null ? null : Number(row.waitlist_position), row.p_lastname, row.p_firstname);
          }
          if (rows.length <= PAGE_ROWS) return;
          after = participantKey(rows[PAGE_ROWS - 1]!, 'state');
        }
      }),
    );
}

async function groupOf(db: Parameters<typeof requireGroupById>[0], id: number) {
  const group = await requireGroupById(db, id);
  return { id: Number(group.id), path: group.path };
}
