import type { TenantDb } from '../../db/types.js';

/**
 * The leaders' messages the person received (as a recipient of their own), newest first. Found from
 * the person's recipient lines (by their index), not by testing every message of the tenant.
 */
export function messagesReceivedBy(db: TenantDb, personId: number): Promise<{ id: number; subject: string; created_at: string }[]> {
  return db
    .selectFrom('messages as m')
    .select(['m.id', 'm.subject', 'm.created_at'])
    .where('m.id', 'in', (eb) => eb.selectFrom('message_recipients as r').select('r.message_id').where('r.person_id', '=', personId))
    .orderBy('m.created_at', 'desc')
    .orderBy('m.id', 'desc')
    .execute();
}
