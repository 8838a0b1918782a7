import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import Type from 'typebox';
import { errors, ruleMessages } from '../../errors.js';
import { ErrorSchema } from '../../http/schemas.js';
import { toDbTimestamp } from '../../lib/time.js';
import { claimKey, releaseKey, storeAnswer, sweepKeys, type KeyClaim } from './queries.js';

/**
 * `Idempotency-Key` on every POST under /api: the first request with a
 * key runs; a repeat by the same token owner within 24 h gets the first answer again without
 * running. Keys live in the tenant's database, so every instance sees them.
 */

const HEADER = 'idempotency-key';
const KEY = /^[\x21-\x7e]{1,255}$/;
const KEEP_MS = 24 * 60 * 60 * 1000;
/** How long a first request may run before a repeat may take its key over (its process died). */
const RUNNING_MS = 5 * 60 * 1000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
/**
 * Their answers carry a secret shown once and never stored, or (the account routes) they have no
 * token owner to scope a key to: the header is ignored there.
 */
const SECRET_ANSWERS = new Set([
  '/api/login', '/api/session', '/api/tokens', '/api/webhooks', '/api/user/calendar',
  '/api/password/forgot', '/api/password/reset', '/api/invitation/check', '/api/invitation/accept',
]);
/** The headers of an answer that a replay gives again (with its status and body). */
const REPLAYED_HEADERS = ['content-type', 'etag', 'location'];

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Makes the POST safe to retry: a repeat with the same key within 24 h gets the first answer again (Idempotent-Replayed: true). 1-255 visible ASCII characters.',
    }),
  ),
});

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: KeyClaim | null;
  }
}

const fingerprintOf = (request: FastifyRequest): string => {
  const { body } = request;
  // A CSV import's body is hashed as it came: no copy of a large file as a JSON string.
  const bytes = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body ?? null);
  return createHash('sha256').update(request.url).update('\n').update(bytes).digest('hex');
};

export default fp(
  async function idempotency(app: FastifyInstance) {
    app.decorateRequest('idempotencyKey', null);
    const lastSweep = new Map<string, number>();

    // After the token, its ability and the body were checked: a request refused before it runs
    // holds no key, and its repeat is refused the same way.
    const claimRequestKey = async (request: FastifyRequest, reply: FastifyReply) => {
      const header = request.headers[HEADER];
      if (header === undefined || request.auth === null) return;
      const key = Array.isArray(header) ? '' : header;
      if (!KEY.test(key)) throw errors.invalidField('idempotency_key', ruleMessages.idempotencyKeyMalformed);
      const ownerId = request.auth.user.id;
      const fingerprint = fingerprintOf(request);
      const now = Date.now();
      const claimedAt = toDbTimestamp(new Date(now));
      const claim = await claimKey(request.tenant.db, ownerId, key, fingerprint, {
        now: claimedAt,
        runningUntil: toDbTimestamp(new Date(now + RUNNING_MS)),
        expiredBefore: toDbTimestamp(new Date(now - KEEP_MS)),
      });
      if (claim.kind === 'claimed') {
        request.idempotencyKey = { ownerId, key, claimedAt };
        return;
      }
      if (claim.fingerprint !== fingerprint) throw errors.invalidField('idempotency_key', ruleMessages.idempotencyKeyReused);
      if (claim.kind === 'running') throw errors.idempotencyKeyInProgress();
      return replay(reply, claim.answer);
    };

    // Before the answer leaves: a client that retries after receiving it finds it stored.
    const storeRequestAnswer = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const held = request.idempotencyKey;
      if (held === null) return payload;
      request.idempotencyKey = null;
      const db = request.tenant.db;
      // A server-side failure is not an answer to keep: the retry runs again.
      if (reply.statusCode >= 500 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
        await releaseKey(db, held);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      await storeAnswer(db, held, { statusCode: reply.statusCode, headers, body: payload.toString() });
      return payload;
    };

    // Expired keys go at most once an hour per tenant and process, after an answer that used one.
    const sweepExpiredKeys = async (request: FastifyRequest) => {
      if (request.headers[HEADER] === undefined || request.tenant === null) return;
      const tenant = request.tenant.slug;
      const now = Date.now();
      if (now - (lastSweep.get(tenant) ?? 0) < SWEEP_EVERY_MS) return;
      lastSweep.set(tenant, now);
      await sweepKeys(request.tenant.db, toDbTimestamp(new Date(now - KEEP_MS))).catch((err: unknown) => {
        request.log.warn({ err }, 'could not sweep expired idempotency keys');
      });
    };

    // Only the POST routes that take part carry these hooks: no other request pays for them. Each
    // says so in the OpenAPI document too (the header and the 409).
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (!methods.includes('POST') || SECRET_ANSWERS.has(route.url)) return;
      route.schema ??= {};
      route.schema.headers ??= IdempotencyHeaders;
      const response = (route.schema.response ??= {}) as Record<string, unknown>;
      response[409] ??= { ...ErrorSchema, description: 'A request with this Idempotency-Key is in progress.' };
      // First of the route's preHandlers, last of its onSend hooks (after every other change to the answer).
      route.preHandler = [claimRequestKey, ...asList(route.preHandler)];
      route.onSend = [...asList(route.onSend), storeRequestAnswer];
      route.onResponse = [...asList(route.onResponse), sweepExpiredKeys];
    });
  },
  { name: 'idempotency', dependencies: ['tenant', 'auth'] },
);

function replay(reply: FastifyReply, answer: { statusCode: number; headers: Record<string, string>; body: string }) {
  reply.code(answer.statusCode).headers(answer.headers).header('idempotent-replayed', 'true').send(answer.body);
  return reply;
}

const asList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);
