import { Command, CommanderError } from 'commander';
import { migrateAll } from '../modules/tenants/rules.js';
import { ConfigError, loadConfig } from '../config.js';
import { ApiError } from '../errors.js';
import { TenantError } from '../modules/tenants/rules.js';
import { CliError, withStorage } from './context.js';
import { registerEventCommands } from './events.js';
import { registerGroupCommands } from './groups.js';
import { registerPeopleCommands } from './people.js';
import { registerImportCommands } from './import.js';
import { registerChangesCommands } from './changes.js';
import { registerWebhookCommands } from './webhooks.js';
import { registerMailCommands } from './mail.js';
import { registerMaintenanceCommands } from './maintenance.js';
import { registerTenantCommands } from './tenant.js';
import { registerTokenCommands } from './token.js';
import { registerUserCommands } from './user.js';

/** Exit statuses: 0 success, 1 an error (one line on stderr), 2 wrong usage. */
export function buildProgram(): Command {
  const program = new Command('groupadmin')
    .description('groupadmin: administer tenants, users, tokens, groups, memberships and events (same configuration as the server)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  program
    .command('serve')
    .description('run the HTTP service')
    .action(async () => {
      // The HTTP service is loaded only for the commands that run it: every other command
      // starts about a third faster without Fastify and the routes.
      const { start } = await import('../server/start.js');
      await start(loadConfig());
    });

  program
    .command('migrate')
    .description('bring the registry and every tenant database to the latest migration')
    .action(() =>
      withStorage(async (storage) => {
        const count = await migrateAll(storage);
        process.stdout.write(`migrated the registry and ${count} tenant(s)\n`);
      }),
    );

  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the API (as served at /api/openapi.json)')
    .action(() =>
      withStorage(async (storage, config) => {
        const [{ buildApp }, { default: pino }] = await Promise.all([import('../app.js'), import('pino')]);
        const app = await buildApp(config, { storage, logger: pino({ level: 'silent' }) });
        await app.ready();
        process.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
        await app.close();
      }),
    );

  registerTenantCommands(program);
  registerUserCommands(program);
  registerTokenCommands(program);
  registerGroupCommands(program);
  registerEventCommands(program);
  registerPeopleCommands(program);
  registerImportCommands(program);
  registerMaintenanceCommands(program);
  registerChangesCommands(program);
  registerWebhookCommands(program);
  registerMailCommands(program);
  return program;
}

// An ApiError here is a rule of the API refusing the command (a group that does not exist, a
// role type in use): its message is the API's, one line.
const EXPECTED_ERRORS = [CliError, ConfigError, TenantError, ApiError];

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  // Commander exits by itself; exitOverride turns that into an exception on every subcommand.
  program.commands.forEach(function override(command: Command) {
    command.exitOverride();
    command.commands.forEach(override);
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help asked for is a success; help shown because something was missing is wrong usage.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      return err.code === 'commander.help' && err.exitCode === 0 ? 0 : 2;
    }
    if (EXPECTED_ERRORS.some((type) => err instanceof type)) {
      process.stderr.write(`groupadmin: ${(err as Error).message}\n`);
      return 1;
    }
    process.stderr.write(`groupadmin: unexpected error: ${(err as Error).message ?? String(err)}\n`);
    return 1;
  }
}
