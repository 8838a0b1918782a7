import type { Command } from 'commander';
import { pruneChangeRecords } from '../modules/changes/prune.js';
import { withStorage } from './context.js';

export function registerChangesCommands(program: Command): void {
  const changes = program.command('changes').description('the change records behind GET /api/changes');
  changes
    .command('prune')
    .description('delete change records older than CHANGES_RETENTION_DAYS (default 30), in every tenant; run it daily')
    .action(() =>
      withStorage(async (storage, config) => {
        const result = await pruneChangeRecords(storage, config.changesRetentionDays);
        process.stdout.write(`${result.deleted} change record(s) older than ${config.changesRetentionDays} days pruned in ${result.tenants} tenant(s)\n`);
      }),
    );
}
