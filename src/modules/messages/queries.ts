import { sql } from 'kysely';
import type { MessageRecipientsTable, ParticipationState, TenantDb } from '../../db/types.js';
import { activeOn, pathUpperBound } from '../../db/conditions.js';
import { binaryText } from '../../db/collation.js';
import { onPostgres } from '../../db/dialect.js';
import type { Day } from '../../lib/time.js';
import { sortKey } from '../../lib/sort-key.js';

/** Rows per insert statement: far below both dialects' limits on bound parameters. */
const CHUNK = 500;

/** The groups at and below the one at `path` (paths are materialised: "/1/4/"). */
export const groupsAtOrBelow = (db: TenantDb, path: string) =>
  db.selectFrom('groups').select(['id', 'path']).where('path', '>=', path).where('path', '<', pathUpperBound(path)).execute();

/** The people with a membership active on `day` in the group (or its subtree), of these role types when given. */
export async function memberIdsOf(db: TenantDb, group: { id: number; path: string }, below: boolean, roleTypes: readonly string[] | null, day: Day): Promise<number[]> {
  let query = db.selectFrom('memberships as m').innerJoin('groups as g', 'g.id', 'm.group_id').select('m.person_id').distinct().where(activeOn('m', day));
  query = below ? query.where('g.path', '>=', group.path).where('g.path', '<', pathUpperBound(group.path)) : query.where('m.group_id', '=', group.id);
  if (roleTypes !== null) query = query.where('m.role_type', 'in', [...roleTypes]);
  return (await query.execute()).map((row) => Number(row.person_id));
}

/** The people with a participation in these states. */
export async function participantIdsOf(db: TenantDb, eventId: number, states: readonly ParticipationState[]): Promise<number[]> {
  const rows = await db.selectFrom('participations').select('person_id').distinct().where('event_id', '=', eventId).where('state', 'in', [...states]).execute();
  return rows.map((row) => Number(row.person_id));
}

/**
 * The tenant's messages are written one at a time (PostgreSQL: a transaction-scoped advisory lock of
 * this class and the tenant's slug), so that two at once cannot both pass the sender's count of the
 * last hour or the tenant's count of the day. A SQLite database takes one writing transaction at a
 * time anyway.
 */
const MESSAGE_LOCK_CLASS = 4_207_002;
export async function lockMessageLimits(db: TenantDb, tenant: string): Promise<void> {
  if (onPostgres(db)) await sql`select pg_advisory_xact_lock(${MESSAGE_LOCK_CLASS}::integer, hashtext(${tenant}))`.execute(db);
}

/** The sender's messages since `since`: how many, and when the oldest of them was written. */
export async function sentSince(db: TenantDb, senderId: number, since: string): Promise<{ count: number; oldest: string | null }> {
  const row = await db
    .selectFrom('messages')
    .select([sql<number>`count(*)`.as('count'), sql<string | null>`min(created_at)`.as('oldest')])
    .where('sender_id', '=', senderId)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : String(row.oldest) };
}

/** The recipients of every message of the tenant since `since`. */
export async function recipientsSince(db: TenantDb, since: string): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select(sql<number>`coalesce(sum(recipient_count), 0)`.as('total'))
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

export interface NewMessageRow {
  sender_id: number;
  subject: string;
  body: string;
  target: string;
  group_id: number | null;
  event_id: number | null;
  recipient_count: number;
  created_at: string;
}

export const insertMessage = async (db: TenantDb, row: NewMessageRow): Promise<number> =>
  Number((await db.insertInto('messages').values(row).returning('id').executeTakeFirstOrThrow()).id);

export type NewRecipientRow = Omit<MessageRecipientsTable, 'id'>;

export async function insertRecipients(db: TenantDb, rows: readonly NewRecipientRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) {
    await db.insertInto('message_recipients').values(rows.slice(start, start + CHUNK)).execute();
  }
}

const withSender = (db: TenantDb) =>
  db
    .selectFrom('messages as msg')
    .leftJoin('users as s', 's.id', 'msg.sender_id')
    .select(['msg.id', 'msg.subject', 'msg.body', 'msg.target', 'msg.group_id', 'msg.event_id', 'msg.sender_id', 'msg.created_at', 's.firstname as s_firstname', 's.lastname as s_lastname']);

export type MessageRow = Awaited<ReturnType<typeof findMessage>> & object;

export const findMessage = (db: TenantDb, id: number) => withSender(db).where('msg.id', '=', id).executeTakeFirst();

/**
 * What a list of messages shows: one sender's, or those to a group or an event. For a group,
 * `withBelow` false leaves out the messages to its whole subtree (`below: true`) that `readerId`
 * did not send: the reader could not send those.
 */
export type MessageSelection = { senderId: number } | { groupId: number; withBelow: boolean; readerId: number } | { eventId: number };

/** How a target with `below: true` is stored (JSON.stringify of the echo, its keys in their fixed order). */
const BELOW_TARGET = '%,"below":true,%';

/** Newest first (by id, which grows with time), keyset before `beforeId`. */
export function listMessageRows(db: TenantDb, selection: MessageSelection, beforeId: number | null, limit: number) {
  let query = withSender(db);
  if ('senderId' in selection) query = query.where('msg.sender_id', '=', selection.senderId);
  else if ('groupId' in selection) {
    query = query.where('msg.group_id', '=', selection.groupId);
    const { readerId } = selection;
    if (!selection.withBelow) query = query.where((eb) => eb.or([eb('msg.target', 'not like', BELOW_TARGET), eb('msg.sender_id', '=', readerId)]));
  }
  else query = query.where('msg.event_id', '=', selection.eventId);
  if (beforeId !== null) query = query.where('msg.id', '<', beforeId);
  return query.orderBy('msg.id', 'desc').limit(limit + 1).execute();
}

/** The recipients of these messages counted by state: one statement for a page. */
export async function countsByMessage(db: TenantDb, messageIds: readonly number[]): Promise<Map<number, Record<string, number>>> {
  const counts = new Map<number, Record<string, number>>();
  if (messageIds.length === 0) return counts;
  const rows = await db
    .selectFrom('message_recipients')
    .select(['message_id', 'state', sql<number>`count(*)`.as('count')])
    .where('message_id', 'in', [...messageIds])
    .groupBy(['message_id', 'state'])
    .execute();
  for (const row of rows) {
    const byState = counts.get(Number(row.message_id)) ?? {};
    byState[row.state] = Number(row.count);
    counts.set(Number(row.message_id), byState);
  }
  return counts;
}

/** A message's recipients in name order, then id. */
export const recipientsOf = (db: TenantDb, messageId: number) =>
  db
    .selectFrom('message_recipients')
    .select(['id', 'person_id', 'name', 'email', 'state', 'error'])
    .where('message_id', '=', messageId)
    .orderBy(binaryText(db, 'name_key'))
    .orderBy('id')
    .execute();

const ERASED_NAME = '[erased]';

/**
 * Erasure in the lists of leaders' messages: as a recipient the person shows as `[erased]` without
 * id or address; the messages they sent keep no sender. Their mail not yet sent is deleted with
 * them, so a line still `queued` becomes `failed`: it would otherwise wait in the counts for ever.
 */
export async function forgetMessagesOf(db: TenantDb, personId: number): Promise<void> {
  await db
    .updateTable('message_recipients')
    .set({ state: 'failed', mail_id: null })
    .where('person_id', '=', personId)
    .where('state', '=', 'queued')
    .execute();
  await db
    .updateTable('message_recipients')
    .set({ person_id: null, name: ERASED_NAME, name_key: sortKey(ERASED_NAME), email: null })
    .where('person_id', '=', personId)
    .execute();
  await db.updateTable('messages').set({ sender_id: null }).where('sender_id', '=', personId).execute();
}
