import { sql, type Kysely, type Selectable } from 'kysely';
import type { RegistryDatabase, WebhookDeliveriesTable, WebhooksTable, TenantDb } from '../../db/types.js';
import { toDbTimestamp } from '../../lib/time.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** The delivery log keeps this many attempts per webhook. */
export const KEPT_DELIVERIES = 100;

const isEnabled = sql<boolean>`enabled`;

export const findWebhook = (db: TenantDb, id: number): Promise<WebhookRow | undefined> =>
  db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();

/** A page of webhooks, oldest first, after the one with id `after`. */
export const listWebhookRows = (db: TenantDb, after: number | null, limit: number): Promise<WebhookRow[]> => {
  let query = db.selectFrom('webhooks').selectAll().orderBy('id').limit(limit + 1);
  if (after !== null) query = query.where('id', '>', after);
  return query.execute();
};

export const insertWebhook = (db: TenantDb, row: Omit<WebhookRow, 'id' | 'failures' | 'version'>): Promise<WebhookRow> =>
  db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();

export type WebhookChanges = Partial<Omit<WebhookRow, 'id' | 'version'>>;

/** A change the API shows: a new version. `version`: change only that one (If-Match), or null for any. */
export const updateWebhook = (db: TenantDb, id: number, changes: WebhookChanges, version: number | null): Promise<WebhookRow | undefined> => {
  let query = db
    .updateTable('webhooks')
    .set((eb) => ({ ...changes, version: eb('version', '+', 1) }))
    .where('id', '=', id);
  if (version !== null) query = query.where('version', '=', version);
  return query.returningAll().executeTakeFirst();
};

export async function deleteWebhook(db: TenantDb, id: number, version: number | null): Promise<boolean> {
  let query = db.deleteFrom('webhooks').where('id', '=', id);
  if (version !== null) query = query.where('version', '=', version);
  const deleted = await query.executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/** Remembers (in the registry) that the tenant has webhooks, so the worker looks into it. */
export async function markWebhookTenant(registry: Kysely<RegistryDatabase>, slug: string): Promise<void> {
  await registry
    .insertInto('webhook_tenants')
    .values({ slug, created_at: toDbTimestamp(new Date()) })
    .onConflict((oc) => oc.column('slug').doNothing())
    .execute();
}

export const listWebhookTenants = async (registry: Kysely<RegistryDatabase>): Promise<string[]> =>
  (await registry.selectFrom('webhook_tenants').select('slug').orderBy('slug').execute()).map((row) => row.slug);

/**
 * Enabled webhooks with a message to send (change records after their position), whose next
 * attempt is due and that no instance holds; those served longest ago first.
 */
export const listDueWebhooks = async (db: TenantDb, now: number, limit: number): Promise<number[]> =>
  (
    await db
      .selectFrom('webhooks')
      .select('id')
      .where(isEnabled)
      .where('position', '<', (eb) => eb.selectFrom('change_sequence').select('last_seq').where('id', '=', 1))
      .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      // A released lease keeps its end: the time the webhook was last served.
      .orderBy(sql`coalesce(lease_until, 0)`)
      .orderBy('id')
      .limit(limit)
      .execute()
  ).map((row) => Number(row.id));

/**
 * Takes the webhook for `holder` until `until`, if it is enabled, due and free: one conditional
 * UPDATE, so of two instances that try at once exactly one succeeds (PostgreSQL re-checks the
 * condition on the row the other committed; SQLite runs the statement under its write lock, as
 * BEGIN IMMEDIATE would).
 */
export async function takeLease(db: TenantDb, id: number, holder: string, now: number, until: number): Promise<WebhookRow | undefined> {
  return db
    .updateTable('webhooks')
    .set({ lease_holder: holder, lease_until: until })
    .where('id', '=', id)
    .where(isEnabled)
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

/** Changes a leased webhook only while `holder` still holds it; undefined when the lease was lost. */
export const updateLeased = (db: TenantDb, id: number, holder: string, changes: WebhookChanges): Promise<WebhookRow | undefined> =>
  db.updateTable('webhooks').set(changes).where('id', '=', id).where('lease_holder', '=', holder).returningAll().executeTakeFirst();

/** Counts a failed attempt in the row itself (a PATCH meanwhile may have reset the count). */
export const countFailure = (db: TenantDb, id: number, holder: string): Promise<WebhookRow | undefined> =>
  db
    .updateTable('webhooks')
    .set((eb) => ({ failures: eb('failures', '+', 1) }))
    .where('id', '=', id)
    .where('lease_holder', '=', holder)
    .returningAll()
    .executeTakeFirst();

/** After the last retry failed: disabled and marked so, unless someone disabled it meanwhile. */
export const disableFailing = (db: TenantDb, id: number, holder: string, now: string): Promise<WebhookRow | undefined> =>
  db
    .updateTable('webhooks')
    .set((eb) => ({ enabled: 0, disabled_reason: 'failing', next_attempt_at: null, updated_at: now, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('lease_holder', '=', holder)
    .where(isEnabled)
    .returningAll()
    .executeTakeFirst();

export interface OutboxRecord {
  seq: number;
  entity: string;
  entity_id: string;
  action: string;
  at: string;
}

/** The first change record after `position` (up to `through`) for a webhook of these entities (null: all). */
export async function nextRecordFor(db: TenantDb, position: number, through: number, entities: string[] | null): Promise<OutboxRecord | undefined> {
  let query = db
    .selectFrom('change_records')
    .select(['seq', 'entity', 'entity_id', 'action', 'at'])
    .where('seq', '>', position)
    .where('seq', '<=', through)
    .orderBy('seq')
    .limit(1);
  if (entities) query = query.where('entity', 'in', entities.length > 0 ? entities : ['']);
  const row = await query.executeTakeFirst();
  return row ? { ...row, seq: Number(row.seq) } : undefined;
}

export async function insertDelivery(db: TenantDb, row: Omit<DeliveryRow, 'id'>): Promise<DeliveryRow> {
  const inserted = await db.insertInto('webhook_deliveries').values(row).returningAll().executeTakeFirstOrThrow();
  // Trims the log back to its last KEPT_DELIVERIES rows: the offset walks at most that many index entries.
  const oldestKept = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('webhook_id', '=', row.webhook_id)
    .orderBy('id', 'desc')
    .offset(KEPT_DELIVERIES - 1)
    .limit(1)
    .executeTakeFirst();
  if (oldestKept) await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', row.webhook_id).where('id', '<', oldestKept.id).execute();
  return inserted;
}

/** A page of a webhook's delivery log, newest first, before the attempt with id `before`. */
export const listDeliveryRows = (db: TenantDb, webhookId: number, before: number | null, limit: number): Promise<DeliveryRow[]> => {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(limit + 1);
  if (before !== null) query = query.where('id', '<', before);
  return query.execute();
};
