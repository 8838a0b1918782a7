import type { TenantDb } from '../../db/types.js';
import { isFailing } from '../mail/rules.js';

/** A person as a mail reaches them: names, address, and whether that address is failing. */
export interface Contact {
  id: number;
  firstname: string;
  lastname: string;
  /** Sort key of the names: lastname, then firstname. */
  nameKey: string;
  email: string | null;
  /** YYYY-MM-DD or null. */
  birthday: string | null;
  /** The SMTP server refused this address permanently three times or more: no mail goes to it. */
  failing: boolean;
}

/** A person and their guardians, each with their address. */
export interface Addressee extends Contact {
  guardians: Contact[];
}

/** Bound parameters per statement, far below both dialects' limits. */
const CHUNK = 500;

const chunksOf = <T>(items: readonly T[]): T[][] => {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) chunks.push(items.slice(start, start + CHUNK));
  return chunks;
};

interface ContactRow {
  id: number;
  firstname: string;
  lastname: string;
  lastname_key: string;
  firstname_key: string;
  email: string | null;
  birthday: string | null;
  es_email: string | null;
  es_refusals: number | null;
}

const contactOf = (row: ContactRow): Contact => ({
  id: Number(row.id),
  firstname: row.firstname,
  lastname: row.lastname,
  nameKey: `${row.lastname_key}\u0001${row.firstname_key}`,
  email: row.email,
  birthday: row.birthday,
  // Read with the person (one statement), judged by the mail module's rule.
  failing: row.email !== null && row.es_email !== null && isFailing({ email: row.es_email, refusals: Number(row.es_refusals) }, row.email),
});

/**
 * The people of `personIds` (those that exist) with their guardians, in two statements per 500
 * people whatever their number: a message to a thousand families reads no row twice.
 */
export async function addresseesOf(db: TenantDb, personIds: readonly number[]): Promise<Map<number, Addressee>> {
  const found = new Map<number, Addressee>();
  const ids = [...new Set(personIds)];
  for (const chunk of chunksOf(ids)) {
    const people = await db
      .selectFrom('users as u')
      .leftJoin('email_status as es', 'es.user_id', 'u.id')
      .select(['u.id', 'u.firstname', 'u.lastname', 'u.lastname_key', 'u.firstname_key', 'u.email', 'u.birthday', 'es.email as es_email', 'es.refusals as es_refusals'])
      .where('u.id', 'in', chunk)
      .execute();
    for (const row of people) found.set(Number(row.id), { ...contactOf(row), guardians: [] });
    const guardians = await db
      .selectFrom('guardianships as gs')
      .innerJoin('users as u', 'u.id', 'gs.guardian_id')
      .leftJoin('email_status as es', 'es.user_id', 'u.id')
      .select(['gs.ward_id', 'u.id', 'u.firstname', 'u.lastname', 'u.lastname_key', 'u.firstname_key', 'u.email', 'u.birthday', 'es.email as es_email', 'es.refusals as es_refusals'])
      .where('gs.ward_id', 'in', chunk)
      .orderBy('u.lastname_key')
      .orderBy('u.firstname_key')
      .orderBy('u.id')
      .execute();
    for (const { ward_id: wardId, ...row } of guardians) found.get(Number(wardId))?.guardians.push(contactOf(row));
  }
  return found;
}
