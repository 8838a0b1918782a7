import { InvalidArgumentError, type Command } from 'commander';
import { deleteTokenOfUser, deleteTokensOfUser } from '../db/tokens.js';
import { CliError, requireUser, tenantDatabase, withStorage } from './context.js';

const positiveInteger = (value: string): number => {
  if (!/^\d{1,15}$/.test(value) || Number(value) === 0) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
};

export function registerTokenCommands(program: Command): void {
  const token = program.command('token').description("manage users' API tokens");

  token
    .command('revoke <tenant> <username>')
    .description('revoke one token (--id) or all tokens (--all) of a user')
    .option('--all', 'revoke every token of the user')
    .option('--id <n>', 'revoke the token with this id', positiveInteger)
    .action((tenant: string, username: string, options: { all?: boolean; id?: number }) => {
      if (Boolean(options.all) === (options.id !== undefined)) {
        token.commands.find((c) => c.name() === 'revoke')?.error('error: give exactly one of --all or --id <n>', {
          exitCode: 2,
          code: 'groupadmin.usage',
        });
      }
      return withStorage(async (storage) => {
        const db = await tenantDatabase(storage, tenant);
        const user = await requireUser(db, tenant, username);
        if (options.all) {
          const count = await deleteTokensOfUser(db, user.id);
          process.stdout.write(`${count} token(s) of "${user.username}" revoked\n`);
          return;
        }
        const count = await deleteTokenOfUser(db, user.id, options.id!);
        if (count === 0) throw new CliError(`token ${options.id} of user "${user.username}" not found`);
        process.stdout.write(`token ${options.id} of "${user.username}" revoked\n`);
      });
    });
}
