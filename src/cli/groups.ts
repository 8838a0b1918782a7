import type { Command } from 'commander';
import type { TSchema } from 'typebox';
import { errors } from '../errors.js';
import { compileObjectValidator } from '../lib/validation.js';
import { ancestorsOf, NewGroupSchema, toApiGroup, type NewGroup } from '../modules/groups/schemas.js';
import { createGroup, groupsInTreeOrder } from '../modules/groups/rules.js';
import type { SortKey } from '../http/paging.js';
import { grantMembership, requireGroupById, groupMembershipKey, listGroupMemberships } from '../modules/memberships/rules.js';
import { MembershipGrantSchema, toApiMembership, type MembershipGrant } from '../modules/memberships/schemas.js';
import { operatorAccess } from '../modules/permissions/rules.js';
import { createRoleType, listRoleTypes } from '../modules/role-types/rules.js';
import { NewRoleTypeSchema, toApiRoleType, type NewRoleType } from '../modules/role-types/schemas.js';
import { CliError, openTenant, withStorage } from './context.js';
import { findPerson } from '../modules/people/rules.js';
import { findUserByUsername } from '../modules/users/rules.js';

/**
 * The group core at the command line. An operator holds every permission
 * (operatorAccess), and each command goes through the same rules as its route, so the CLI and
 * the API refuse the same things with the same messages.
 */

/** Checks command-line input with the schema of the route that takes the same input. */
export function validated<T>(schema: TSchema, input: Record<string, unknown>): T {
  const check = compileObjectValidator<T>(schema)(input);
  if (!check.ok) throw errors.validation(check.fieldErrors);
  return check.value;
}

/** An id given on the command line: digits only, else a CliError naming the option. */
export function idOption(value: string, option: string): number {
  if (!/^\d{1,15}$/.test(value) || Number(value) < 1) throw new CliError(`${option} must be a positive whole number, not "${value}"`);
  return Number(value);
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
const line = (...cells: (string | number | null)[]) => process.stdout.write(`${cells.map((cell) => cell ?? '-').join('\t')}\n`);

export function registerGroupCommands(program: Command): void {
  const group = program.command('group').description('list and create the groups of a tenant');

  group
    .command('list <tenant>')
    .description('list the groups in tree order, one per line: id, parent id, depth, kind, name (tab-separated)')
    .action((tenant: string) =>
      withStorage(async (storage) => {
        const { db } = await openTenant(storage, tenant);
        for (const row of await groupsInTreeOrder(db)) {
          line(Number(row.id), row.parent_id === null ? null : Number(row.parent_id), ancestorsOf(row).length, row.kind || null, row.name);
        }
      }),
    );

  group
    .command('create <tenant> <name>')
    .description('create a group below --parent; prints it as JSON (the GET /api/groups/{id} shape)')
    .requiredOption('--parent <id>', 'id of the parent group')
    .option('--kind <kind>', 'kind of group, e.g. troop or patrol')
    .option('--description <text>', 'description')
    .action((tenant: string, name: string, options: { parent: string; kind?: string; description?: string }) =>
      withStorage(async (storage) => {
        const input = validated<NewGroup>(NewGroupSchema, {
          parent_id: idOption(options.parent, '--parent'),
          name,
          ...(options.kind === undefined ? {} : { kind: options.kind }),
          ...(options.description === undefined ? {} : { description: options.description }),
        });
        const { db, today } = await openTenant(storage, tenant);
        print(toApiGroup(await createGroup(db, await operatorAccess(db, today), input)));
      }),
    );

  const roleType = program.command('role-type').description('list and create the role types of a tenant');

  roleType
    .command('list <tenant>')
    .description('list the role types, one per line: key, permission, scope, label (tab-separated)')
    .action((tenant: string) =>
      withStorage(async (storage) => {
        const { db } = await openTenant(storage, tenant);
        for (const row of await listRoleTypes(db)) line(row.key, row.permission, row.scope, row.label);
      }),
    );

  roleType
    .command('create <tenant> <key>')
    .description('create a role type; prints it as JSON')
    .requiredOption('--permission <p>', 'none, read, write or admin')
    .requiredOption('--scope <s>', 'group (that group only) or subtree (the group and every group below it)')
    .option('--label <l>', 'label (defaults to the key)')
    .action((tenant: string, key: string, options: { permission: string; scope: string; label?: string }) =>
      withStorage(async (storage) => {
        const input = validated<NewRoleType>(NewRoleTypeSchema, {
          key,
          permission: options.permission,
          scope: options.scope,
          ...(options.label === undefined ? {} : { label: options.label }),
        });
        const { db } = await openTenant(storage, tenant);
        print(toApiRoleType(await createRoleType(db, null, input)));
      }),
    );

  const membership = program.command('membership').description('add and list memberships');

  membership
    .command('add <tenant> <person>')
    .description('give a person (a username, or else a person id) a role in a group; prints the membership as JSON')
    .requiredOption('--group <id>', 'id of the group')
    .requiredOption('--role <key>', 'key of the role type')
    .option('--start <date>', 'first day (YYYY-MM-DD; default today in the tenant\'s time zone)')
    .option('--end <date>', 'last day (YYYY-MM-DD; default none)')
    .action((tenant: string, person: string, options: { group: string; role: string; start?: string; end?: string }) =>
      withStorage(async (storage) => {
        const grant = validated<MembershipGrant>(MembershipGrantSchema, membershipInput(options));
        const { db, today } = await openTenant(storage, tenant);
        const personId = await personIdOf(db, tenant, person);
        print(toApiMembership(await grantMembership(db, await operatorAccess(db, today), personId, grant)));
      }),
    );

  membership
    .command('list <tenant>')
    .description('list the memberships of a group active today, one per line: id, person id, last name, first name, role type, start, end (tab-separated)')
    .requiredOption('--group <id>', 'id of the group')
    .option('--all', 'also the ended and the future ones')
    .action((tenant: string, options: { group: string; all?: boolean }) =>
      withStorage(async (storage) => {
        const groupId = idOption(options.group, '--group');
        const { db, today } = await openTenant(storage, tenant);
        await requireGroupById(db, groupId);
        // Keyset pages, as the route reads them, so a large group never sits in memory at once.
        const PAGE = 500;
        let after: SortKey | null = null;
        for (;;) {
          const rows = await listGroupMemberships(db, groupId, { activeOn: options.all ? null : today }, after, PAGE);
          for (const row of rows.slice(0, PAGE)) {
            line(Number(row.id), Number(row.person_id), row.p_lastname, row.p_firstname, row.role_type, row.start_on, row.end_on);
          }
          if (rows.length <= PAGE) break;
          after = groupMembershipKey(rows[PAGE - 1]!);
        }
      }),
    );
}

/** The membership options of `membership add` and `user create`, as the body of POST /memberships. */
export function membershipInput(options: { group: string; role: string; start?: string; end?: string }): Record<string, unknown> {
  return {
    group_id: idOption(options.group, '--group'),
    role_type: options.role,
    ...(options.start === undefined ? {} : { start_on: options.start }),
    ...(options.end === undefined ? {} : { end_on: options.end }),
  };
}

/** A person named on the command line: a username when such a user exists, otherwise (digits only) a person id. */
async function personIdOf(db: Parameters<typeof findPerson>[0], tenant: string, person: string): Promise<number> {
  const byName = await findUserByUsername(db, person);
  if (byName) return byName.id;
  if (/^\d{1,15}$/.test(person)) {
    const byId = await findPerson(db, Number(person));
    if (byId) return byId.id;
  }
  throw new CliError(`person "${person}" not found in tenant "${tenant}"`);
}
