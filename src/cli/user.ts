import { Option, type Command } from 'commander';
import Type from 'typebox';
import { compileObjectValidator } from '../lib/validation.js';
import { generatePassword } from '../lib/passwords/passwords.js';
import { createUser, UserConflictError } from '../modules/users/rules.js';
import { NewPassword, validateNewUser } from '../modules/users/schemas.js';
import { grantFirstAdministrator } from '../modules/memberships/first-admin.js';
import { addMembership, requireGrantable, requireGroupById } from '../modules/memberships/rules.js';
import { MembershipGrantSchema, type MembershipGrant } from '../modules/memberships/schemas.js';
import { operatorAccess } from '../modules/permissions/rules.js';
import { CliError, openTenant, readPasswordFromStdin, requireUser, tenantDatabase, withStorage } from './context.js';
import { membershipInput } from './groups.js';
import { transact } from '../recording/recorder.js';
import { changePassword, deactivateUser, activateUser } from '../modules/auth/accounts.js';
import { endAccountLinksOf } from '../modules/accounts/rules.js';

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

/** `--group` and `--role` of `user create`, checked as POST /memberships checks them; null without. */
function initialMembership(options: Record<string, string | boolean | undefined>): MembershipGrant | null {
  const { group, role, start, end } = options;
  if (group === undefined && role === undefined) {
    if (start !== undefined || end !== undefined) throw new CliError('--start and --end need --group and --role');
    return null;
  }
  if (typeof group !== 'string' || typeof role !== 'string') throw new CliError('--group and --role go together');
  const input = membershipInput({ group, role, ...(typeof start === 'string' ? { start } : {}), ...(typeof end === 'string' ? { end } : {}) });
  const check = validateGrant(input);
  if (!check.ok) throw new CliError(firstMessage(check.fieldErrors));
  return check.value;
}

const validateGrant = compileObjectValidator<MembershipGrant>(MembershipGrantSchema);

export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('manage the users of a tenant');

  const create = user
    .command('create <tenant> <username>')
    .description('create a user; prints it as JSON (the GET /api/user shape)')
    .requiredOption('--email <e>', 'e-mail address')
    .requiredOption('--firstname <f>', 'first name')
    .requiredOption('--lastname <l>', 'last name')
    .option('--password-stdin', 'read the password from standard input (else one is generated and printed)')
    .option('--group <id>', 'give the user a membership in this group (with --role); without it, the first user becomes administrator of the root group')
    .option('--role <key>', 'role type of that membership')
    .option('--start <date>', 'first day of that membership (YYYY-MM-DD; default today)')
    .option('--end <date>', 'last day of that membership (YYYY-MM-DD)');
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
      const grant = initialMembership(options);
      const { password, generated } = choosePassword(Boolean(options.passwordStdin));
      const checked = validateNewUser({ ...input, password });
      if (!checked.ok) throw new CliError(firstMessage(checked.fieldErrors));
      const { db, today } = await openTenant(storage, tenant);
      const operator = await operatorAccess(db, today);
      // The group and the role type are checked before the user exists, so a typo creates nobody.
      if (grant) await requireGrantable(db, operator, await requireGroupById(db, grant.group_id), grant.role_type);
      // The user and their first membership in one transaction: a membership refused (dates out of
      // order) leaves no user behind.
      const created = await transact(db, null, async (trx) => {
        let user;
        try {
          user = await createUser(trx, checked.value);
        } catch (err) {
          if (err instanceof UserConflictError) throw new CliError(firstMessage(err.fieldErrors));
          throw err;
        }
        // Without --group, the tenant's first administrator.
        if (grant) await addMembership(trx, user.id, grant, today);
        else await grantFirstAdministrator(trx, user.id, today);
        return user;
      });
      process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
      // stderr stays the generated password's alone, as docs/operations/command-line.md says.
      reportGenerated(password, generated);
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
        const revoked = await deactivateUser(db, row.id, (trx) => endAccountLinksOf(trx, row.id));
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
