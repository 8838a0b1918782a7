import { InvalidArgumentError, type Command } from 'commander';
import { ABILITIES, ALL_GRANTED } from '../http/abilities.js';
import { compileObjectValidator } from '../lib/validation.js';
import { pruneExpiredTokens } from '../modules/tokens/prune.js';
import { issueToken, listTokens, newTokenProblems, revokeAllTokens, revokeToken } from '../modules/tokens/rules.js';
import { NewTokenRequestSchema, type NewTokenRequest } from '../modules/tokens/schemas.js';
import { CliError, requireUser, tenantDatabase, withStorage } from './context.js';

const validateNewToken = compileObjectValidator<NewTokenRequest>(NewTokenRequestSchema);

const nonNegativeNumber = (value: string): number => {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('must be a number of hours, 0 or more');
  return Number(value);
};

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
          const count = await revokeAllTokens(db, user.id);
          process.stdout.write(`${count} token(s) of "${user.username}" revoked\n`);
          return;
        }
        const revoked = await revokeToken(db, user.id, options.id!);
        if (!revoked) throw new CliError(`token ${options.id} of user "${user.username}" not found`);
        process.stdout.write(`token ${options.id} of "${user.username}" revoked\n`);
      });
    });

  token
    .command('list <tenant> <username>')
    .description("list a user's tokens as JSON (as GET /api/tokens shows them; never the secrets)")
    .action((tenant: string, username: string) =>
      withStorage(async (storage, config) => {
        const db = await tenantDatabase(storage, tenant);
        const user = await requireUser(db, tenant, username);
        const sessions = { idleMs: config.sessionIdleMs, rememberMs: config.sessionRememberMs };
        const tokens = (await listTokens(db, user.id, null, sessions)).map((listed) => {
          const { current: _current, ...item } = listed;
          return item;
        });
        process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
      }),
    );

  token
    .command('create <tenant> <username>')
    .description('create a token for a user and print it once (only its hash is kept)')
    .requiredOption('--name <name>', 'what the token is for, e.g. the application')
    .option('--abilities <list>', `comma-separated, from: ${ABILITIES.join(', ')}`, '*')
    .option('--expires-at <time>', 'ISO 8601 moment after which the token stops working')
    .action((tenant: string, username: string, options: { name: string; abilities: string; expiresAt?: string }) =>
      withStorage(async (storage, config) => {
        const input = {
          name: options.name,
          abilities: [...new Set(options.abilities.split(',').map((ability) => ability.trim()).filter(Boolean))],
          ...(options.expiresAt === undefined ? {} : { expires_at: options.expiresAt }),
        };
        const checked = validateNewToken(input);
        if (!checked.ok) throw new CliError(Object.values(checked.fieldErrors).flat()[0] ?? 'invalid input');
        const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at);
        // An operator may grant any ability; the expiry must still lie ahead.
        const problems = newTokenProblems({ abilities: ALL_GRANTED, expiresAt: null }, { abilities: input.abilities, expiresAt });
        if (problems) throw new CliError(Object.values(problems).flat()[0] ?? 'invalid input');
        const db = await tenantDatabase(storage, tenant);
        const user = await requireUser(db, tenant, username);
        const issued = await issueToken(db, user.id, {
          tokenPrefix: config.tokenPrefix,
          name: input.name,
          abilities: input.abilities,
          expiresAt,
        });
        process.stdout.write(`${issued.plainTextToken}\n`);
      }),
    );

  token
    .command('prune')
    .description('delete tokens that expired more than --hours ago, in every tenant')
    .option('--hours <n>', 'how long after expiry a token is kept (browser sessions that ended by idleness go at once)', nonNegativeNumber, 24)
    .action((options: { hours: number }) =>
      withStorage(async (storage, config) => {
        const result = await pruneExpiredTokens(storage, options.hours, { idleMs: config.sessionIdleMs, rememberMs: config.sessionRememberMs });
        process.stdout.write(`${result.deleted} expired token(s) pruned in ${result.tenants} tenant(s)\n`);
      }),
    );
}
