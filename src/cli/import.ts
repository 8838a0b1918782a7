import type { Command } from 'commander';
import { openSourceDatabase, SourceError } from '../modules/laravel-import/source.js';
import { ImportError, importFromLaravel } from '../modules/laravel-import/rules.js';
import { CliError, statisticsNotRefreshed, tenantDatabase, withStorage } from './context.js';

export function registerImportCommands(program: Command): void {
  const importCommand = program.command('import').description('bring data over from another system');

  importCommand
    .command('laravel <tenant>')
    .description(
      'copy users and personal_access_tokens from the original (Laravel + Sanctum) database into a tenant, keeping ids, password hashes and tokens; safe to run again',
    )
    .requiredOption('--from <database-url>', 'postgres://..., mysql://... (or mariadb://...), or sqlite:<path>')
    .action((tenant: string, options: { from: string }) =>
      withStorage(async (storage) => {
        const target = await tenantDatabase(storage, tenant);
        let source;
        try {
          source = await openSourceDatabase(options.from);
        } catch (err) {
          if (err instanceof SourceError) throw new CliError(err.message);
          throw err;
        }
        try {
          const reports = await importFromLaravel(source, target, {
            onProgress: (message) => process.stderr.write(`${message}\n`),
          });
          await storage.syncIdSequences(tenant, ['users', 'personal_access_tokens']);
          await storage.refreshStatistics(tenant, ['users']).catch(statisticsNotRefreshed);
          for (const report of reports) {
            process.stdout.write(
              `${report.table}: ${report.read} read, ${report.imported} imported, ${report.alreadyPresent} already present\n`,
            );
          }
        } catch (err) {
          if (err instanceof ImportError) throw new CliError(err.message);
          const message = (err as Error).message ?? String(err);
          throw new CliError(`import failed: ${message}`);
        } finally {
          await source.destroy();
        }
      }),
    );
}
