import type { Caller } from '../../http/caller.js';
import type { Authenticator } from '../../http/auth.js';
import type { RequestTenant } from '../../http/tenant.js';
import { LAST_USED_WRITE_INTERVAL_MS, type LastUseRecorder } from './last-use.js';
import { parseBearerHeader } from './secrets.js';
import type { TokenVerifier, SessionLimits } from './verifier.js';
import { deleteSessionIfEnded } from './rules.js';

// HOT PATH (see docs/architecture.md): runs for every request that carries a token.

/**
 * Bearer tokens as the request pipeline's authenticator (http/auth.ts): the header parsed, the
 * token verified (from memory, or a synchronous read where the storage allows), and the use
 * noted for last_used_at, written in batches off the request's path.
 */
export interface TokenAuthenticatorOptions {
  verifier: TokenVerifier;
  lastUse: LastUseRecorder;
  sessions: SessionLimits;
  /** Where a failed deletion of an ended session is reported (the sweep of `token prune` deletes it later). */
  onError?: (err: unknown) => void;
}

export function createTokenAuthenticator({ verifier, lastUse, sessions, onError = () => {} }: TokenAuthenticatorOptions): Authenticator {
  /** last_used_at at most once per LAST_USED_WRITE_INTERVAL_MS per token. */
  const noteUse = (tenant: RequestTenant, found: Caller | null, moment: Date) => {
    if (!found) return found;
    const nowMs = moment.getTime();
    if (nowMs - (found.lastUsedAtMs ?? 0) >= LAST_USED_WRITE_INTERVAL_MS) {
      verifier.markUsed(tenant.slug, found.tokenId, nowMs);
      lastUse.record(tenant.slug, tenant.db, found.tokenId, moment);
    }
    return found;
  };
  return {
    authenticateNow(tenant, authorization, now) {
      const bearer = parseBearerHeader(authorization);
      if (!bearer) return null;
      const found = verifier.verifyNow(tenant.slug, tenant.db, bearer, now.getTime());
      return found === undefined ? undefined : noteUse(tenant, found, now);
    },
    async authenticate(tenant, authorization, now) {
      const bearer = parseBearerHeader(authorization);
      if (!bearer) return null;
      return noteUse(tenant, await verifier.verify(tenant.slug, tenant.db, bearer, now.getTime()), now);
    },
    dropEndedSession(tenant, authorization, now) {
      const bearer = parseBearerHeader(authorization);
      if (bearer) deleteSessionIfEnded(tenant.db, bearer.id, sessions, now).catch(onError);
    },
  };
}
