import { errors } from '../errors.js';
import { hasAbility, type Ability } from './abilities.js';

/**
 * The caller's own record. Declared open here so that the request pipeline need not know a user's
 * shape; the users module widens it to GET /user's record (modules/users/schemas.ts).
 */
export interface CallerProfile {
  id: number;
}

/** Who is calling: the owner of a valid bearer token, and what the token allows. */
export interface Caller {
  user: CallerProfile;
  tokenId: number;
  abilities: string[];
  /** When the token's last_used_at was last written (ms since epoch), or null if never. */
  lastUsedAtMs: number | null;
  /** The token is a browser's session (a cookie carries it): how it ends by idleness; null for an API token. */
  session: SessionKind | null;
  /** When the token was made (ms since epoch): a remembered session's cookie is sent again once a day from it. */
  createdAtMs: number;
}

/** A browser's session ends after a short idle time, or after a long one when asked to be remembered. */
export type SessionKind = 'short' | 'remembered';

/** What a route needs before its body is read: any valid token, or a token with this ability. */
export type Requirement = Ability | 'token';

/** 401 without a caller, 403 when the caller's token lacks the ability; else the caller. */
export function requireCaller(caller: Caller | null, requirement: Requirement): Caller {
  if (!caller) throw errors.unauthenticated();
  if (requirement !== 'token' && !hasAbility(caller.abilities, requirement)) throw errors.abilityMissing();
  return caller;
}
