/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely } from 'kysely';
import { isPostgres, schemaOf } from '../dialect.js';

/**
 * `member_order`: every membership once under its own group and once under each group above it,
 * with its person's sort keys and names, so a page of a group's (or a subtree's) members in the
 * people lists' name order is one range of one index, read from the cursor (the people page's
 * targets, docs/benchmarks/README.md). Walking `users_list_order` and testing each person passed
 * cost what the subtree's share of the tenant decides, and grew with the tenant's size (CPU
 * caches); this range costs the page's rows alone.
 *
 * Triggers keep it, in the transaction of each write (on PostgreSQL at its commit, upPostgres),
 * so no write path can forget it:
 * - a membership inserted, changed or deleted (a person erased takes theirs along);
 * - a person renamed (their rows take the new names and keys);
 * - a group moved (its path changes, and with it the groups its memberships lie under).
 *
 * The groups above a membership's group are the ids on its path ("/1/4/9/": 1, 4 and 9).
 */
const COPIED = 'group_id, membership_id, person_id, lastname_key, firstname_key, lastname, firstname, start_on, end_on, role_type, direct';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  const bigint = postgres ? 'bigint' : 'integer';
  // Names compared code point by code point, as `users_list_order` orders them.
  const binary = postgres ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable('member_order')
    .addColumn('group_id', bigint, (col) => col.notNull())
    // SQLite: a membership's rows go with it. PostgreSQL: its deletion trigger removes them (upPostgres).
    .addColumn('membership_id', bigint, (col) => (postgres ? col.notNull() : col.notNull().references('memberships.id').onDelete('cascade')))
    .addColumn('person_id', bigint, (col) => col.notNull())
    .addColumn('lastname_key', binary, (col) => col.notNull())
    .addColumn('firstname_key', binary, (col) => col.notNull())
    .addColumn('lastname', binary, (col) => col.notNull())
    .addColumn('firstname', binary, (col) => col.notNull())
    .addColumn('start_on', 'varchar(10)', (col) => col.notNull())
    .addColumn('end_on', 'varchar(10)')
    .addColumn('role_type', 'varchar(64)', (col) => col.notNull())
    // 1 on the membership's own group, 0 on the groups above it.
    .addColumn('direct', 'integer', (col) => col.notNull())
    .execute();
  // The whole test of a row is in the index: the walk never reads the table.
  await db.schema
    .createIndex('member_order_list')
    .on('member_order')
    .columns(['group_id', 'lastname_key', 'firstname_key', 'lastname', 'firstname', 'person_id', 'start_on', 'end_on', 'role_type', 'direct'])
    .execute();
  await db.schema.createIndex('member_order_membership').on('member_order').column('membership_id').execute();
  await db.schema.createIndex('member_order_person').on('member_order').column('person_id').execute();
  if (postgres) await upPostgres(db);
  else await upSqlite(db);
}

/** The rows of the memberships that `where` picks (aliases m, g for its group, u for its person). */
function rowsOf(postgres: boolean, where: string): string {
  const above = postgres
    ? `cross join lateral unnest(string_to_array(trim(both '/' from g.path), '/')) as a(id)`
    : `cross join json_each('[' || replace(trim(g.path, '/'), '/', ',') || ']') as a`;
  const groupId = postgres ? 'a.id::bigint' : 'a.value';
  return (
    `select ${groupId}, m.id, m.person_id, u.lastname_key, u.firstname_key, u.lastname, u.firstname, m.start_on, m.end_on, m.role_type, ` +
    `case when ${groupId} = m.group_id then 1 else 0 end ` +
    `from memberships m join groups g on g.id = m.group_id join users u on u.id = m.person_id ${above} where ${where}`
  );
}

async function upSqlite(db: Kysely<any>): Promise<void> {
  const statements = [
    `insert into member_order (${COPIED}) ${rowsOf(false, 'true')}`,
    `create trigger member_order_membership_added after insert on memberships begin ` +
      `insert into member_order (${COPIED}) ${rowsOf(false, 'm.id = new.id')}; end`,
    `create trigger member_order_membership_changed after update of person_id, group_id, role_type, start_on, end_on on memberships begin ` +
      `delete from member_order where membership_id = old.id; insert into member_order (${COPIED}) ${rowsOf(false, 'm.id = new.id')}; end`,
    `create trigger member_order_person_renamed after update of lastname_key, firstname_key, lastname, firstname on users ` +
      `when old.lastname_key is not new.lastname_key or old.firstname_key is not new.firstname_key ` +
      `or old.lastname is not new.lastname or old.firstname is not new.firstname begin ` +
      `update member_order set lastname_key = new.lastname_key, firstname_key = new.firstname_key, lastname = new.lastname, firstname = new.firstname ` +
      `where person_id = new.id; end`,
    `create trigger member_order_group_moved after update of path on groups when old.path is not new.path begin ` +
      `delete from member_order where membership_id in (select id from memberships where group_id = new.id); ` +
      `insert into member_order (${COPIED}) ${rowsOf(false, 'm.group_id = new.id')}; end`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/**
 * PostgreSQL runs writers side by side, and a trigger cannot see what another transaction has not
 * committed: a membership written beside a move of its group, or a rename beside a move, would
 * leave rows with the path or names before the other's change. So here the triggers are deferred
 * to the commit, and each one computes its rows again from what is there then. Every write of the
 * service ends (transact, recording/recorder.ts) by taking the tenant's change sequence row, held
 * until its commit, so the deferred triggers of two writers run one after the other, the second
 * reading what the first committed; they write `member_order` alone, and take no other lock.
 * (`member_order` has no foreign key here: the deletion trigger removes a membership's rows.)
 */
async function upPostgres(db: Kysely<any>): Promise<void> {
  const schema = `"${(schemaOf(db) ?? 'public').replace(/"/g, '""')}"`;
  // The functions name their tables with the tenant's schema: a trigger runs under the caller's search_path.
  const rows = (where: string) => rowsOf(true, where).replace(/\b(memberships|groups|users) (m|g|u)\b/g, `${schema}.$1 $2`);
  const insert = `insert into ${schema}.member_order (${COPIED})`;
  const deferred = (name: string, event: string, table: string, when = '') =>
    `create constraint trigger ${name} after ${event} on ${schema}.${table} deferrable initially deferred for each row ${when} execute function ${schema}.${name}()`;
  const statements = [
    // Instances of the previous version may write while this migrates (a rolling deploy): nothing
    // written between the fill and the triggers would get its rows. Their writes wait, in one
    // lock order, until the migration commits.
    `lock table ${schema}.users, ${schema}.groups, ${schema}.memberships in share row exclusive mode`,
    `${insert} ${rows('true')}`,
    `create function ${schema}.member_order_membership_written() returns trigger language plpgsql as $$ begin ` +
      `delete from ${schema}.member_order where membership_id = (case when tg_op = 'DELETE' then old.id else new.id end); ` +
      `if tg_op <> 'DELETE' then ${insert} ${rows('m.id = new.id')}; end if; return null; end $$`,
    deferred('member_order_membership_written', 'insert or update of person_id, group_id, role_type, start_on, end_on or delete', 'memberships'),
    `create function ${schema}.member_order_person_renamed() returns trigger language plpgsql as $$ begin ` +
      `update ${schema}.member_order o set lastname_key = u.lastname_key, firstname_key = u.firstname_key, lastname = u.lastname, firstname = u.firstname ` +
      `from ${schema}.users u where u.id = new.id and o.person_id = new.id; return null; end $$`,
    deferred(
      'member_order_person_renamed',
      'update of lastname_key, firstname_key, lastname, firstname',
      'users',
      'when (old.lastname_key is distinct from new.lastname_key or old.firstname_key is distinct from new.firstname_key ' +
        'or old.lastname is distinct from new.lastname or old.firstname is distinct from new.firstname)',
    ),
    `create function ${schema}.member_order_group_moved() returns trigger language plpgsql as $$ begin ` +
      `delete from ${schema}.member_order where membership_id in (select id from ${schema}.memberships where group_id = new.id); ` +
      `${insert} ${rows('m.group_id = new.id')}; return null; end $$`,
    deferred('member_order_group_moved', 'update of path', 'groups', 'when (old.path is distinct from new.path)'),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    const schema = `"${(schemaOf(db) ?? 'public').replace(/"/g, '""')}"`;
    await sql.raw(`drop trigger member_order_membership_written on ${schema}.memberships`).execute(db);
    await sql.raw(`drop trigger member_order_person_renamed on ${schema}.users`).execute(db);
    await sql.raw(`drop trigger member_order_group_moved on ${schema}.groups`).execute(db);
    for (const fn of ['member_order_membership_written', 'member_order_person_renamed', 'member_order_group_moved']) {
      await sql.raw(`drop function ${schema}.${fn}()`).execute(db);
    }
  } else {
    for (const name of ['member_order_membership_added', 'member_order_membership_changed', 'member_order_person_renamed', 'member_order_group_moved']) {
      await sql.raw(`drop trigger ${name}`).execute(db);
    }
  }
  await db.schema.dropTable('member_order').execute();
}
