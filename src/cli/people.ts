import { once } from 'node:events';
import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { ApiError } from '../errors.js';
import { peopleCsv, peopleSelection } from '../modules/people/csv.js';
import { parseImportFile } from '../modules/people-import/parse.js';
import { importPeople, requireImportTarget, tablesToRefreshAfter } from '../modules/people-import/rules.js';
import { operatorAccess } from '../modules/permissions/rules.js';
import { CliError, openTenant, statisticsNotRefreshed, withStorage } from './context.js';
import { idOption } from './groups.js';

/**
 * The people CSV out and in, for an operator (every permission, as the other commands).
 * The same functions as GET /api/people (Accept: text/csv) and POST /api/people/import.
 */
export function registerPeopleCommands(program: Command): void {
  const people = program.command('people').description('export and import the people of a tenant as CSV');

  people
    .command('export <tenant>')
    .description('print every person (or the active members of --group) as the CSV file of GET /api/people with Accept: text/csv')
    .option('--group <id>', 'only the active members of this group')
    .option('--below', 'with --group: of its subgroups too')
    .action((tenant: string, options: { group?: string; below?: boolean }) =>
      withStorage(async (storage) => {
        if (options.below && options.group === undefined) throw new CliError('--below needs --group');
        const { db, today } = await openTenant(storage, tenant);
        const access = await operatorAccess(db, today);
        const filters = options.group === undefined ? {} : { group_id: idOption(options.group, '--group'), below: options.below === true };
        const csv = await peopleCsv(db, access, await peopleSelection(db, access, filters));
        csv.pipe(process.stdout, { end: false });
        await once(csv, 'end');
      }),
    );

  people
    .command('import <tenant> <file>')
    .description(
      'import people from a CSV file into --group with --role (all or nothing); prints {created, updated, unchanged}, or every problem by row (exit status 1)',
    )
    .requiredOption('--group <id>', 'id of the group every row joins')
    .requiredOption('--role <key>', 'key of the role type of that membership')
    .option('--dry-run', 'check and count only; write nothing')
    .action((tenant: string, file: string, options: { group: string; role: string; dryRun?: boolean }) =>
      withStorage(async (storage, config) => {
        const groupId = idOption(options.group, '--group');
        const size = await stat(file).then((info) => info.size, () => {
          throw new CliError(`cannot read "${file}"`);
        });
        if (size > config.importBodyLimit) throw new CliError(`"${file}" is larger than IMPORT_BODY_LIMIT (${config.importBodyLimit} bytes)`);
        const body = await readFile(file);
        const { db, today } = await openTenant(storage, tenant);
        const access = await operatorAccess(db, today);
        try {
          const target = await requireImportTarget(db, access, groupId, options.role);
          const importFile = parseImportFile(body, config.importMaxRows);
          const counts = await importPeople(db, access, target, importFile, { dryRun: options.dryRun === true });
          await storage.refreshStatistics(tenant, tablesToRefreshAfter(importFile, { dryRun: options.dryRun === true })).catch(statisticsNotRefreshed);
          process.stdout.write(`${JSON.stringify(counts)}\n`);
        } catch (err) {
          // Every problem of every row, as the API's `errors`; the first one on stderr.
          if (err instanceof ApiError && err.details.fieldErrors) process.stdout.write(`${JSON.stringify(err.details.fieldErrors, null, 2)}\n`);
          throw err;
        }
      }),
    );
}
