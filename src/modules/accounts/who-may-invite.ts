import type { TenantDb, UserRow } from '../../db/types.js';
import { mayChangeLoginOf, rightToChange, type Access } from '../permissions/rules.js';

/**
 * Who may invite P: whoever may change P fully, holds `write` on every group where P holds a role of
 * `read` or more that has not ended (active or starting later), and may change each of P's wards
 * fully: exactly who may set the e-mail address of P without a login, because the invitation goes to
 * that address and opens an account. Being P's guardian is never enough. (The ability
 * `people:write` is the route's.) Whether P can be invited at all (active, an address, no login yet)
 * is a separate question: see invitationProblem.
 */
export async function mayInvite(db: TenantDb, access: Access, person: Pick<UserRow, 'id'>): Promise<boolean> {
  const personId = Number(person.id);
  const right = await rightToChange(db, access, personId);
  if (right !== 'full') return false;
  // Judged as for a person without a login: one with a login cannot be invited anyway (422).
  return mayChangeLoginOf(db, access, { id: personId, hasLogin: false }, right);
}
