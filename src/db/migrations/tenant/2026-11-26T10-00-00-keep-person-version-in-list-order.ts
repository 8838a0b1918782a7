/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely } from 'kysely';
import { isPostgres, schemaOf } from '../dialect.js';
import * as keepMembersInListOrder from './2026-11-25T10-00-00-keep-members-in-list-order.js';

/**
 * `member_order` keeps its person's `version` and `updated_at` too, in its index, so a page of a
 * group's members in the name order is read from that one index (the people page's targets,
 * docs/benchmarks/README.md). The page's answer is the people's kept JSON, checked against
 * exactly these two columns (people/json-memory.ts); before, the page looked up each of its 51
 * people in `users` for them. Those lookups were most of what PostgreSQL spent on a page, and grew
 * with the tenant (a page of a tenant of 100,000 people took a third longer than one of 10,000).
 *
 * The triggers of `keep-members-in-list-order` are defined again with the two columns: those of
 * memberships and groups under their names, and `member_order_person_renamed` as
 * `member_order_person_changed`, which follows any change of the four names, the version or
 * `updated_at`. Every write of a users row by the service moves both, so a person's rows are
 * written with each change of the person; PostgreSQL does it at the commit, one writer after the
 * other, as the other triggers there.
 *
 * On SQLite the person's rows are copied from the users row as it is when the trigger runs, not
 * from the update's NEW: a rename made with SQL also fires `users_version_moves_with_names`
 * (`move-version-with-names`), whose second update moves the version, and whichever of the two
 * triggers SQLite runs last then still copies the moved version.
 */
const COPIED =
  'group_id, membership_id, person_id, lastname_key, firstname_key, lastname, firstname, start_on, end_on, role_type, direct, version, updated_at';
const PERSON = ['lastname_key', 'firstname_key', 'lastname', 'firstname', 'version', 'updated_at'];

/** The rows of the memberships that `where` picks (aliases m, g for its group, u for its person). */
function rowsOf(postgres: boolean, where: string): string {
  const above = postgres
    ? `cross join lateral unnest(string_to_array(trim(both '/' from g.path), '/')) as a(id)`
    : `cross join json_each('[' || replace(trim(g.path, '/'), '/', ',') || ']') as a`;
  const groupId = postgres ? 'a.id::bigint' : 'a.value';
  return (
    `select ${groupId}, m.id, m.person_id, u.lastname_key, u.firstname_key, u.lastname, u.firstname, m.start_on, m.end_on, m.role_type, ` +
    `case when ${groupId} = m.group_id then 1 else 0 end, u.version, u.updated_at ` +
    `from memberships m join groups g on g.id = m.group_id join users u on u.id = m.person_id ${above} where ${where}`
  );
}

/** The index the page reads: its range (group, names, person), its test (days, role type, direct), and what it answers. */
async function createListIndex(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('member_order_list').execute();
  await db.schema
    .createIndex('member_order_list')
    .on('member_order')
    .columns(['group_id', 'lastname_key', 'firstname_key', 'lastname', 'firstname', 'person_id', 'start_on', 'end_on', 'role_type', 'direct', 'version', 'updated_at'])
    .execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await upPostgres(db);
    // No ANALYZE here, though every row was written again (autovacuum analyzes soon after): a new
    // tenant's table, analyzed while empty, was planned as empty in the triggers' cached plans,
    // and their deletes scanned the whole table for each membership loaded (a load of 100,000
    // people did not end).
    await createListIndex(db);
    return;
  }
  // Kysely's migrator runs SQLite's migrations outside a transaction: one that failed half-way
  // (the columns added, the triggers not) could not be run again.
  if (!db.isTransaction) return db.transaction().execute((trx) => up(trx));
  await upSqlite(db);
  await createListIndex(db);
}

async function upSqlite(db: Kysely<any>): Promise<void> {
  const changed = PERSON.map((column) => `old.${column} is not new.${column}`).join(' or ');
  const statements = [
    `alter table member_order add column version integer not null default 0`,
    `alter table member_order add column updated_at timestamp not null default ''`,
    `update member_order set version = u.version, updated_at = u.updated_at from users u where u.id = member_order.person_id`,
    `drop trigger member_order_membership_added`,
    `drop trigger member_order_membership_changed`,
    `drop trigger member_order_person_renamed`,
    `drop trigger member_order_group_moved`,
    `create trigger member_order_membership_added after insert on memberships begin ` +
      `insert into member_order (${COPIED}) ${rowsOf(false, 'm.id = new.id')}; end`,
    `create trigger member_order_membership_changed after update of person_id, group_id, role_type, start_on, end_on on memberships begin ` +
      `delete from member_order where membership_id = old.id; insert into member_order (${COPIED}) ${rowsOf(false, 'm.id = new.id')}; end`,
    `create trigger member_order_person_changed after update of ${PERSON.join(', ')} on users when ${changed} begin ` +
      `update member_order set (${PERSON.join(', ')}) = (select ${PERSON.join(', ')} from users where id = new.id) where person_id = new.id; end`,
    `create trigger member_order_group_moved after update of path on groups when old.path is not new.path begin ` +
      `delete from member_order where membership_id in (select id from memberships where group_id = new.id); ` +
      `insert into member_order (${COPIED}) ${rowsOf(false, 'm.group_id = new.id')}; end`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/**
 * As in `keep-members-in-list-order`: deferred to the commit, each computing its rows again from
 * what is there then. Each now takes the tenant's change sequence row first, as every write of the
 * service that records a change does at its end (a no-op for those): a write made with SQL behind the service's back (a
 * typo fixed in psql) then also waits for a service write committing beside it, and its trigger
 * reads that write's rows. Without it, a person changed that way while a grant of theirs
 * committed could leave the grant's rows with the version before the change, and pages would
 * show the person's JSON of that version until the person's next change.
 */
async function upPostgres(db: Kysely<any>): Promise<void> {
  const schema = quotedSchema(db);
  const takeTurn = `perform 1 from ${schema}.change_sequence where id = 1 for no key update; `;
  const rows = (where: string) => rowsOf(true, where).replace(/\b(memberships|groups|users) (m|g|u)\b/g, `${schema}.$1 $2`);
  const insert = `insert into ${schema}.member_order (${COPIED})`;
  const changed = PERSON.map((column) => `old.${column} is distinct from new.${column}`).join(' or ');
  const statements = [
    // Instances of the previous version may write while this migrates (a rolling deploy): their
    // writes wait until the migration commits (one that locks in another order is a deadlock
    // PostgreSQL breaks: that write fails, or this migration, and with it the instance's start; the
    // next start runs it again).
    `lock table ${schema}.users, ${schema}.groups, ${schema}.memberships, ${schema}.member_order in share row exclusive mode`,
    `alter table ${schema}.member_order add column version integer, add column updated_at timestamp`,
    `update ${schema}.member_order o set version = u.version, updated_at = u.updated_at from ${schema}.users u where u.id = o.person_id`,
    `alter table ${schema}.member_order alter column version set not null, alter column updated_at set not null`,
    `create or replace function ${schema}.member_order_membership_written() returns trigger language plpgsql as $$ begin ${takeTurn}` +
      `delete from ${schema}.member_order where membership_id = (case when tg_op = 'DELETE' then old.id else new.id end); ` +
      `if tg_op <> 'DELETE' then ${insert} ${rows('m.id = new.id')}; end if; return null; end $$`,
    `create or replace function ${schema}.member_order_group_moved() returns trigger language plpgsql as $$ begin ${takeTurn}` +
      `delete from ${schema}.member_order where membership_id in (select id from ${schema}.memberships where group_id = new.id); ` +
      `${insert} ${rows('m.group_id = new.id')}; return null; end $$`,
    `drop trigger member_order_person_renamed on ${schema}.users`,
    `drop function ${schema}.member_order_person_renamed()`,
    `create function ${schema}.member_order_person_changed() returns trigger language plpgsql as $$ begin ${takeTurn}` +
      `update ${schema}.member_order o set ${PERSON.map((column) => `${column} = u.${column}`).join(', ')} ` +
      `from ${schema}.users u where u.id = new.id and o.person_id = new.id; return null; end $$`,
    `create constraint trigger member_order_person_changed after update of ${PERSON.join(', ')} on ${schema}.users ` +
      `deferrable initially deferred for each row when (${changed}) execute function ${schema}.member_order_person_changed()`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

const quotedSchema = (db: Kysely<any>) => `"${(schemaOf(db) ?? 'public').replace(/"/g, '""')}"`;

/** Back to `keep-members-in-list-order` as it was made: the table dropped with its triggers, and made and filled again by it. */
export async function down(db: Kysely<any>): Promise<void> {
  // As up(): on SQLite in one transaction, so that a failed step leaves nothing half-done.
  if (!isPostgres(db) && !db.isTransaction) return db.transaction().execute((trx) => down(trx));
  if (isPostgres(db)) {
    const schema = quotedSchema(db);
    await sql.raw(`drop trigger member_order_membership_written on ${schema}.memberships`).execute(db);
    await sql.raw(`drop trigger member_order_person_changed on ${schema}.users`).execute(db);
    await sql.raw(`drop trigger member_order_group_moved on ${schema}.groups`).execute(db);
    for (const fn of ['member_order_membership_written', 'member_order_person_changed', 'member_order_group_moved']) {
      await sql.raw(`drop function ${schema}.${fn}()`).execute(db);
    }
  } else {
    for (const name of ['member_order_membership_added', 'member_order_membership_changed', 'member_order_person_changed', 'member_order_group_moved']) {
      await sql.raw(`drop trigger ${name}`).execute(db);
    }
  }
  await db.schema.dropTable('member_order').execute();
  await keepMembersInListOrder.up(db);
}
