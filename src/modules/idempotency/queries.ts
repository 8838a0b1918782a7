import type { IdempotencyKeysTable, TenantDb } from '../../db/types.js';

export interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'running'; fingerprint: string }
  | { kind: 'answered'; fingerprint: string; answer: StoredAnswer };

interface ClaimTimes {
  now: string;
  runningUntil: string;
  /** Keys created before this are expired: their next use starts afresh. */
  expiredBefore: string;
}

/**
 * Takes a key for a request: a new key, an expired one, or one whose first request was abandoned
 * (its process died before answering). Otherwise says what the key holds. Both statements are
 * single-row and atomic, so of two requests with the same key only one ever holds it.
 */
export async function claimKey(db: TenantDb, ownerId: number, key: string, fingerprint: string, times: ClaimTimes): Promise<Claim> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({ owner_id: ownerId, key, fingerprint, running_until: times.runningUntil, created_at: times.now })
    .onConflict((conflict) => conflict.columns(['owner_id', 'key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'claimed' };
  const taken = await db
    .updateTable('idempotency_keys')
    .set({ fingerprint, status_code: null, headers: null, body: null, running_until: times.runningUntil, created_at: times.now })
    .where('owner_id', '=', ownerId)
    .where('key', '=', key)
    .where((eb) => eb.or([eb('created_at', '<', times.expiredBefore), eb.and([eb('status_code', 'is', null), eb('running_until', '<', times.now)])]))
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 1) return { kind: 'claimed' };
  const row = await db.selectFrom('idempotency_keys').selectAll().where('owner_id', '=', ownerId).where('key', '=', key).executeTakeFirst();
  // Gone between the statements (its first request failed and let it go): ask again.
  if (!row) return claimKey(db, ownerId, key, fingerprint, times);
  return answerOf(row);
}

function answerOf(row: IdempotencyKeysTable): Claim {
  if (row.status_code === null) return { kind: 'running', fingerprint: row.fingerprint };
  return {
    kind: 'answered',
    fingerprint: row.fingerprint,
    answer: { statusCode: Number(row.status_code), headers: JSON.parse(row.headers ?? '{}') as Record<string, string>, body: row.body ?? '' },
  };
}

/**
 * A claim is the key as one request took it: `claimedAt` tells it apart from a later claim of the
 * same key (a repeat that took over after RUNNING_MS), which a late first request must not touch.
 */
export interface KeyClaim {
  ownerId: number;
  key: string;
  claimedAt: string;
}

export async function storeAnswer(db: TenantDb, claim: KeyClaim, answer: StoredAnswer): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: answer.statusCode, headers: JSON.stringify(answer.headers), body: answer.body, running_until: null })
    .where('owner_id', '=', claim.ownerId)
    .where('key', '=', claim.key)
    .where('created_at', '=', claim.claimedAt)
    .execute();
}

/** Lets a key go (its request failed on the server's side: a retry should run again). */
export async function releaseKey(db: TenantDb, claim: KeyClaim): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('owner_id', '=', claim.ownerId).where('key', '=', claim.key).where('created_at', '=', claim.claimedAt).execute();
}

/** Deletes the keys created before `before`; returns how many. */
export async function sweepKeys(db: TenantDb, before: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Whether a kept answer shows the person: their record (with its names) or a row of theirs (`person_id`). */
function mentionsPerson(value: unknown, personId: number): boolean {
  if (Array.isArray(value)) return value.some((item) => mentionsPerson(item, personId));
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Record<string, unknown>;
  if (row.person_id === personId || (row.id === personId && 'firstname' in row)) return true;
  return Object.values(row).some((item) => mentionsPerson(item, personId));
}

/** What the URL of an erased person answers, kept in place of the answers that showed them. */
const ERASED_ANSWER: StoredAnswer = {
  statusCode: 404,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify({ success: false, message: 'Person not found.' }),
};

/**
 * Erasure (the tombstones stay, the personal data goes): every kept answer that shows the person
 * (the answer of the POST that created them, of a participation or membership of theirs, of a
 * guardianship with them as guardian) becomes 404 `Person not found.`, which is what their URL
 * answers from now on. The key stays taken, so a retry still does not run the request again (it
 * would create the person anew). Their own keys go with them (the owner's foreign key).
 */
export async function forgetAnswersAbout(db: TenantDb, personId: number): Promise<void> {
  const candidates = await db
    .selectFrom('idempotency_keys')
    .select(['owner_id', 'key', 'body'])
    .where('status_code', 'is not', null)
    // Only answers with the id as a person's id or a row's person_id (the JSON is compact).
    .where((eb) => eb.or([`%"person_id":${personId},%`, `%"person_id":${personId}}%`, `%"id":${personId},"%`].map((pattern) => eb('body', 'like', pattern))))
    .execute();
  for (const row of candidates) {
    let body: unknown;
    try {
      body = JSON.parse(row.body ?? '');
    } catch {
      continue; // not JSON (no answer of a person is anything else)
    }
    if (!mentionsPerson(body, personId)) continue;
    await db
      .updateTable('idempotency_keys')
      .set({ status_code: ERASED_ANSWER.statusCode, headers: JSON.stringify(ERASED_ANSWER.headers), body: ERASED_ANSWER.body })
      .where('owner_id', '=', row.owner_id)
      .where('key', '=', row.key)
      .execute();
  }
}
