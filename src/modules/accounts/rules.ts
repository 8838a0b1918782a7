import type { TenantDb, UserRow } from '../../db/types.js';
import { isUniqueViolation } from '../../db/errors.js';
import { errors, fieldMessages } from '../../errors.js';
import type { SessionKind } from '../../http/caller.js';
import { hashPassword } from '../../lib/passwords/passwords.js';
import { toApiTimestamp, toDbTimestamp } from '../../lib/time.js';
import { lowerAscii } from '../../lib/validation.js';
import { HIDDEN_PASSWORD, personChanges } from '../../recording/person-changes.js';
import { noteUpdated, transact } from '../../recording/recorder.js';
import { forgetMessagesOf } from '../messages/rules.js';
import { failingAddressesOf, forgetMailOf, voidMailTokens } from '../mail/rules.js';
import { queueMail } from '../mail/outbox.js';
import { appLink, type MailHub } from '../mail/settings.js';
import { canSeePerson, type Access } from '../permissions/rules.js';
import { issueToken, revokeAllTokens } from '../tokens/rules.js';
import type { IssuedToken } from '../tokens/schemas.js';
import { findUserById, findUserByEmail, findUserByUsername, hasLogin, updateUserPasswordHash, updateUserProfile } from '../users/rules.js';
import { emailChangedMail, invitationMail, resetMail, type TenantFacts } from './mails.js';
import { accountMessages } from './messages.js';
import {
  countResetsSince,
  deleteAccountTokensOf,
  findAccountTokenByHash,
  forgetInviter,
  insertAccountToken,
  lockAccountOf,
  useAccountToken,
  voidLiveTokens,
  type AccountTokenRow,
} from './queries.js';
import { INVITATION_VALID_MS, lookupHashOf, newAccountToken, RESET_VALID_MS, sameHash, type AccountTokenKind } from './tokens.js';
import { mayInvite } from './who-may-invite.js';

// Password resets, invitations, and what a changed address or an erasure does to them. Each mail is
// written to the outbox in the transaction of the change that causes it; the caller wakes the
// worker after the commit.

const MINUTE_MS = 60_000;
/** At most one reset mail a minute and five an hour per address. */
const RESETS_PER_HOUR = 5;

/** The tenant's name and language, as its mails show them (the letterheads of notifications/letterhead.ts). */
export interface TenantFactsReader {
  of(slug: string): Promise<TenantFacts>;
}

const sameAddress = (a: string | null, b: string | null): boolean => a !== null && b !== null && lowerAscii(a) === lowerAscii(b);

/** Mail and the tenant, for the rules that write mail. */
export interface MailContext {
  hub: MailHub;
  tenant: TenantFacts;
}

/**
 * POST /password/forgot, after the answer has gone out: mails a reset link to the active person with
 * a login whose address this is, unless one went to that address in the last minute or five in the
 * last hour. A new link voids the earlier ones; a request that sends nothing voids nothing. True when
 * a mail was written (the caller then wakes the worker).
 */
export async function requestPasswordReset(db: TenantDb, hub: MailHub, tenantOf: () => Promise<TenantFacts>, email: string, now = new Date()): Promise<boolean> {
  const found = await findUserByEmail(db, email);
  if (!found || !resettable(found)) return false;
  const tenant = await tenantOf();
  return transact(db, null, async (trx) => {
    const userId = Number(found.id);
    await lockAccountOf(trx, userId);
    const person = await findUserById(trx, userId);
    if (!person || !resettable(person) || !sameAddress(person.email, email)) return false;
    const address = person.email!;
    const recent = await countResetsSince(trx, userId, lowerAscii(address), toDbTimestamp(new Date(now.getTime() - 60 * MINUTE_MS)));
    if (recent.count >= RESETS_PER_HOUR || (recent.latestMs !== null && recent.latestMs > now.getTime() - MINUTE_MS)) return false;
    const at = toDbTimestamp(now);
    await voidMailTokens(trx, await voidLiveTokens(trx, userId, ['reset'], at));
    const token = newAccountToken();
    const tokenId = await insertAccountToken(trx, {
      kind: 'reset',
      userId,
      hash: token.hash,
      email: address,
      inviterId: null,
      expiresAt: toDbTimestamp(new Date(now.getTime() + RESET_VALID_MS)),
      createdAt: at,
    });
    const to = { id: userId, firstname: person.firstname, lastname: person.lastname, email: address, username: person.username! };
    await queueMail(trx, hub, { ...resetMail(tenant, to, appLink(hub.config, tenant.slug, `reset=${token.plain}`)), accountTokenId: tokenId }, now);
    return true;
  });
}

const resettable = (person: UserRow): boolean => Boolean(person.is_active) && hasLogin(person) && person.email !== null;

/** A live token of this kind (unused, not expired, not voided) and its person as they are now; null for anything else. */
async function liveToken(db: TenantDb, kind: AccountTokenKind, presented: unknown, now: Date): Promise<{ token: AccountTokenRow; person: UserRow } | null> {
  const hash = lookupHashOf(presented);
  if (hash === null) return null;
  const token = await findAccountTokenByHash(db, hash);
  if (!token || !sameHash(token.token, hash) || token.kind !== kind || token.used_at !== null) return null;
  if (Date.parse(toApiTimestamp(token.expires_at)) <= now.getTime()) return null;
  const person = await findUserById(db, token.user_id);
  // Deactivated, erased, another address since, or (a reset) no login any more: unknown.
  if (!person || !person.is_active || !sameAddress(person.email, token.email)) return null;
  if (kind === 'reset' ? !hasLogin(person) : hasLogin(person)) return null;
  return { token, person };
}

/** The signed-in user, as a login's or a session's answer shows them. */
export interface SignedIn {
  user: { id: number; username: string; email: string; firstname: string; lastname: string };
  issued: IssuedToken;
}

const signedInUser = (row: UserRow): SignedIn['user'] => ({
  id: Number(row.id),
  username: row.username ?? '',
  email: row.email ?? '',
  firstname: row.firstname,
  lastname: row.lastname,
});

export interface SignInOptions {
  tokenPrefix: string;
  /** The session form: the new token is a browser's session. */
  session?: SessionKind;
}

/** Whether the reset token is live now (the route checks it before the password's rules). */
export const resetTokenIsLive = async (db: TenantDb, token: unknown, now = new Date()): Promise<boolean> => (await liveToken(db, 'reset', token, now)) !== null;

/**
 * POST /password/reset: a new password for the token's user, as a password change sets it: every
 * token and session of the user ends, and one new token (or session) signs them in. The reset token
 * is used up, and the user's other reset links die with it. It never activates a user. Null when the
 * token is not live (also when another request used it a moment ago).
 */
export async function resetPassword(db: TenantDb, token: unknown, password: string, options: SignInOptions, now = new Date()): Promise<SignedIn | null> {
  const found = await liveToken(db, 'reset', token, now);
  if (!found) return null;
  const hash = await hashPassword(password);
  const userId = Number(found.person.id);
  return transact(db, userId, async (trx) => {
    const at = toDbTimestamp(now);
    await lockAccountOf(trx, userId);
    if (!(await useAccountToken(trx, found.token.id, at))) return null;
    const person = await findUserById(trx, userId);
    if (!person || !person.is_active || !hasLogin(person) || !sameAddress(person.email, found.token.email)) throw errors.invalidField('token', accountMessages.resetInvalid);
    await updateUserPasswordHash(trx, userId, hash, at);
    noteUpdated(trx, 'person', userId, { password: HIDDEN_PASSWORD }, { personId: userId });
    await revokeAllTokens(trx, userId);
    await voidMailTokens(trx, [found.token.id, ...(await voidLiveTokens(trx, userId, ['reset'], at))]);
    const issued = await issueToken(trx, userId, { tokenPrefix: options.tokenPrefix, now, ...(options.session ? { session: options.session } : {}) });
    return { user: signedInUser(person), issued };
  });
}

/**
 * The first reason P cannot be invited, as a 422: deactivated, a login already, no address, an address
 * that was refused before. Who may invite is asked first (mayInvite).
 */
async function invitationProblem(db: TenantDb, person: UserRow) {
  if (!person.is_active) return errors.invalidField('person', accountMessages.personDeactivated);
  if (hasLogin(person)) return errors.invalidField('person', accountMessages.personHasLogin);
  if (person.email === null) return errors.invalidField('email', accountMessages.personHasNoEmail);
  const failing = await failingAddressesOf(db, [{ userId: Number(person.id), email: person.email }]);
  if (failing.size > 0) return errors.invalidField('email', accountMessages.addressRefused);
  return null;
}

/** The person with this id if the caller sees them (who sees whom: permissions/rules.ts), else null. */
export async function findVisiblePerson(db: TenantDb, access: Access, id: number | null): Promise<UserRow | null> {
  if (id === null || !(await canSeePerson(db, access, id))) return null;
  return (await findUserById(db, id)) ?? null;
}

export interface Invitation {
  person_id: number;
  expires_at: string;
}

/**
 * POST /people/{id}/invitation for a person the caller sees (the route found them, 404 otherwise):
 * 403 unless the caller may invite them, 422 when they cannot be invited; else a new invitation
 * (the earlier one void) mailed to their address, valid 7 days, naming the inviter.
 */
export async function invitePerson(
  db: TenantDb,
  access: Access,
  person: UserRow,
  inviter: { id: number; firstname: string; lastname: string },
  mail: { hub: MailHub; tenantOf: () => Promise<TenantFacts> },
  now = new Date(),
): Promise<Invitation> {
  if (!(await mayInvite(db, access, person))) throw errors.unauthorized();
  const problem = await invitationProblem(db, person);
  if (problem) throw problem;
  const tenant = await mail.tenantOf();
  const personId = Number(person.id);
  return transact(db, inviter.id, async (trx) => {
    await lockAccountOf(trx, personId);
    const current = await findUserById(trx, personId);
    if (!current) throw errors.notFound('Person');
    const again = await invitationProblem(trx, current);
    if (again) throw again;
    const at = toDbTimestamp(now);
    await voidMailTokens(trx, await voidLiveTokens(trx, personId, ['invitation'], at));
    const token = newAccountToken();
    const expiresAt = new Date(now.getTime() + INVITATION_VALID_MS);
    const tokenId = await insertAccountToken(trx, {
      kind: 'invitation',
      userId: personId,
      hash: token.hash,
      email: current.email!,
      inviterId: inviter.id,
      expiresAt: toDbTimestamp(expiresAt),
      createdAt: at,
    });
    const to = { id: personId, firstname: current.firstname, lastname: current.lastname, email: current.email! };
    await queueMail(trx, mail.hub, { ...invitationMail(tenant, to, inviter, appLink(mail.hub.config, tenant.slug, `invitation=${token.plain}`)), accountTokenId: tokenId }, now);
    return { person_id: personId, expires_at: toApiTimestamp(toDbTimestamp(expiresAt)) };
  });
}

export interface InvitationFacts {
  firstname: string;
  lastname: string;
  /** Null once the inviter has been erased. */
  inviter: { firstname: string; lastname: string } | null;
}

/** POST /invitation/check: who is invited and by whom, or null for a token that is not live. */
export async function checkInvitation(db: TenantDb, token: unknown, now = new Date()): Promise<InvitationFacts | null> {
  const found = await liveToken(db, 'invitation', token, now);
  if (!found) return null;
  const inviter = found.token.inviter_id === null ? undefined : await findUserById(db, found.token.inviter_id);
  return {
    firstname: found.person.firstname,
    lastname: found.person.lastname,
    inviter: inviter ? { firstname: inviter.firstname, lastname: inviter.lastname } : null,
  };
}

/** Whether the invitation is live now (the route checks it before the other fields' rules). */
export const invitationIsLive = async (db: TenantDb, token: unknown, now = new Date()): Promise<boolean> => (await liveToken(db, 'invitation', token, now)) !== null;

/**
 * POST /invitation/accept: the invited person gets the login (a username nobody has, case-insensitive,
 * and the password) and is signed in. Null when the token is not live; 422 on `username` when taken.
 */
export async function acceptInvitation(db: TenantDb, token: unknown, username: string, password: string, options: SignInOptions, now = new Date()): Promise<SignedIn | null> {
  const found = await liveToken(db, 'invitation', token, now);
  if (!found) return null;
  if (await findUserByUsername(db, username)) throw errors.invalidField('username', fieldMessages.taken('username'));
  const hash = await hashPassword(password);
  const personId = Number(found.person.id);
  const accepted = transact(db, personId, async (trx) => {
    const at = toDbTimestamp(now);
    await lockAccountOf(trx, personId);
    if (!(await useAccountToken(trx, found.token.id, at))) return null;
    const before = await findUserById(trx, personId);
    if (!before || !before.is_active || hasLogin(before) || !sameAddress(before.email, found.token.email)) throw errors.invalidField('token', accountMessages.invitationInvalid);
    const after = await updateUserProfile(trx, personId, { username, password: hash }, at);
    noteUpdated(trx, 'person', personId, personChanges(before, after), { personId });
    await revokeAllTokens(trx, personId);
    await voidMailTokens(trx, [found.token.id, ...(await voidLiveTokens(trx, personId, ['invitation', 'reset'], at))]);
    const issued = await issueToken(trx, personId, { tokenPrefix: options.tokenPrefix, now, ...(options.session ? { session: options.session } : {}) });
    return { user: signedInUser(after), issued };
  });
  return accepted.catch((error: unknown) => {
    // The same username taken by another request since the check above.
    if (isUniqueViolation(error)) throw errors.invalidField('username', fieldMessages.taken('username'));
    throw error;
  });
}

/**
 * A person's address changed (PATCH /people/{id}, PATCH /user): inside the change's transaction, the
 * old address gets a notice naming who changed it (null: the person themself), never the new
 * address, and the person's unused reset and invitation links die. A change of letter case only is
 * the same address. Not for imports: no import sends mail. True when a mail was written.
 */
export async function noteEmailChange(
  trx: TenantDb,
  mail: MailContext,
  before: Pick<UserRow, 'id' | 'firstname' | 'lastname' | 'email'>,
  after: Pick<UserRow, 'email'>,
  actor: { id: number; firstname: string; lastname: string } | null,
  now = new Date(),
): Promise<boolean> {
  if (before.email === null || sameAddress(before.email, after.email)) return false;
  const personId = Number(before.id);
  await voidMailTokens(trx, await voidLiveTokens(trx, personId, ['reset', 'invitation'], toDbTimestamp(now)));
  const to = { id: personId, firstname: before.firstname, lastname: before.lastname, email: before.email };
  await queueMail(trx, mail.hub, emailChangedMail(mail.tenant, to, actor === null || actor.id === personId ? null : actor), now);
  return true;
}

/**
 * The same for a change made where the tenant's facts were not read before the transaction (PATCH
 * /user): they are read here, only when the address is really replaced (they are kept for a moment,
 * so this rarely reaches the registry).
 */
export async function notifyEmailChange(
  trx: TenantDb,
  mail: { hub: MailHub; letterheads: TenantFactsReader; slug: string },
  before: Pick<UserRow, 'id' | 'firstname' | 'lastname' | 'email'>,
  after: Pick<UserRow, 'email'>,
  actor: { id: number; firstname: string; lastname: string } | null,
): Promise<boolean> {
  if (!changesAddress(before.email, after.email)) return false;
  return noteEmailChange(trx, { hub: mail.hub, tenant: await mail.letterheads.of(mail.slug) }, before, after, actor);
}

/** Whether a change of `email` from `before` to `next` is a new address (the caller then reads the tenant's facts). */
export const changesAddress = (before: string | null, next: string | null | undefined): boolean => next !== undefined && before !== null && !sameAddress(before, next);

/**
 * A deactivated account (inside its transaction): its reset and invitation links die for good, also
 * if it is activated again later, and the stored mails lose them.
 */
export async function endAccountLinksOf(trx: TenantDb, personId: number, now = new Date()): Promise<void> {
  await voidMailTokens(trx, await voidLiveTokens(trx, personId, ['reset', 'invitation'], toDbTimestamp(now)));
}

/**
 * Erasure (inside its transaction): the person's reset and invitation tokens (and the links in the
 * stored copies of their mails), mail not yet sent to them, their mail status; in the lists of
 * messages they received they show as `[erased]` without id or address, and messages they sent keep
 * no sender. Invitations they sent no longer name them.
 */
export async function forgetAccountOf(trx: TenantDb, personId: number): Promise<void> {
  await voidMailTokens(trx, await deleteAccountTokensOf(trx, personId));
  await forgetInviter(trx, personId);
  await forgetMailOf(trx, personId);
  await forgetMessagesOf(trx, personId);
}
