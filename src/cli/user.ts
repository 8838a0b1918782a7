import { Option, type Command } from 'commander';
import Type from 'typebox';
import { compileObjectValidator } from '../lib/validation.js';
import { generatePassword } from '../modules/auth/passwords.js';
import { activateUser, changePassword, createUser, deactivateUser, UserConflictError } from '../modules/users/rules.js';
import { NewPassword, validateNewUser } from '../modules/users/schemas.js';
import { CliError, readPasswordFromStdin, requireUser, tenantDatabase, withStorage } from './context.js';

const TEXT_FIELDS = ['phonenumber', 'phonenumber_mobile', 'street', 'housenumber', 'zip', 'city'] as const;
const INTEGER_FIELDS = ['gender_id', 'type_id'] as const;
const BOOLEAN_FIELDS = ['is_vegetarian', 'can_swimm'] as const;

/** Command-line text -> the JSON type the API takes, so the same validator words the same errors. */
function fromText(field: string, value: string): unknown {
  if ((INTEGER_FIELDS as readonly string[]).includes(field)) return /^-?\d+$/.test(value) ? Number(value) : value;
  if ((BOOLEAN_FIELDS as readonly string[]).includes(field)) {
    if (['true', '1', 'yes'].includes(value.toLowerCase())) return true;
    if (['false', '0', 'no'].includes(value.toLowerCase())) return false;
    return value;
  }
  return value;
}

function firstMessage(fieldErrors: Record<string, string[]>): string {
  return Object.values(fieldErrors).flat()[0] ?? 'invalid input';
}

const validatePassword = compileObjectValidator<{ password: string }>(
  Type.Object({ password: NewPassword }),
);

function choosePassword(fromStdin: boolean): { password: string; generated: boolean } {
  const password = fromStdin ? readPasswordFromStdin() : generatePassword();
  const check = validatePassword({ password });
  if (!check.ok) throw new CliError(firstMessage(check.fieldErrors));
  return { password, generated: !fromStdin };
}

function reportGenerated(password: string, generated: boolean) {
  // On stderr, so stdout stays machine-readable; shown this once and stored nowhere.
  if (generated) process.stderr.write(`generated password: ${password}\n`);
}

export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('manage the users of a tenant');

  const create = user
    .command('create <tenant> <username>')
    .description('create a user; prints it as JSON (the GET /api/user shape)')
    .requiredOption('--email <e>', 'e-mail address')
    .requiredOption('--firstname <f>', 'first name')
    .requiredOption('--lastname <l>', 'last name')
    .option('--password-stdin', 'read the password from standard input (else one is generated and printed)');
  for (const field of [...INTEGER_FIELDS, ...TEXT_FIELDS, ...BOOLEAN_FIELDS]) {
    create.addOption(new Option(`--${field} <value>`, field.replace(/_/g, ' ')));
  }
  create.action((tenant: string, username: string, options: Record<string, string | boolean | undefined>) =>
    withStorage(async (storage) => {
      const input: Record<string, unknown> = {
        username,
        email: options.email,
        firstname: options.firstname,
        lastname: options.lastname,
      };
      for (const field of [...INTEGER_FIELDS, ...TEXT_FIELDS, ...BOOLEAN_FIELDS]) {
        const value = options[field];
        if (typeof value === 'string') input[field] = fromText(field, value);
      }
      const { password, generated } = choosePassword(Boolean(options.passwordStdin));
      const checked = validateNewUser({ ...input, password });
      if (!checked.ok) throw new CliError(firstMessage(checked.fieldErrors));
      const db = await tenantDatabase(storage, tenant);
      try {
        const created = await createUser(db, checked.value);
        process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
        reportGenerated(password, generated);
      } catch (err) {
        if (err instanceof UserConflictError) throw new CliError(firstMessage(err.fieldErrors));
        throw err;
      }
    }),
  );

  user
    .command('passwd <tenant> <username>')
    .description("set a user's password and revoke all of the user's tokens")
    .option('--password-stdin', 'read the password from standard input (else one is generated and printed)')
    .action((tenant: string, username: string, options: { passwordStdin?: boolean }) =>
      withStorage(async (storage) => {
        const { password, generated } = choosePassword(Boolean(options.passwordStdin));
        const db = await tenantDatabase(storage, tenant);
        const row = await requireUser(db, tenant, username);
        const revoked = await changePassword(db, row.id, password);
        process.stdout.write(`password of "${row.username}" changed; ${revoked} token(s) revoked\n`);
        reportGenerated(password, generated);
      }),
    );

  user
    .command('deactivate <tenant> <username>')
    .description('stop a user from logging in and revoke all of the user\'s tokens')
    .action((tenant: string, username: string) =>
      withStorage(async (storage) => {
        const db = await tenantDatabase(storage, tenant);
        const row = await requireUser(db, tenant, username);
        const revoked = await deactivateUser(db, row.id);
        process.stdout.write(`user "${row.username}" deactivated; ${revoked} token(s) revoked\n`);
      }),
    );

  user
    .command('activate <tenant> <username>')
    .description('let a deactivated user log in again')
    .action((tenant: string, username: string) =>
      withStorage(async (storage) => {
        const db = await tenantDatabase(storage, tenant);
        const row = await requireUser(db, tenant, username);
        await activateUser(db, row.id);
        process.stdout.write(`user "${row.username}" activated\n`);
      }),
    );
}
