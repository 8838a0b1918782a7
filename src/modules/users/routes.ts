import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { errors } from '../../errors.js';
import { callerOf } from '../../http/auth.js';
import type { FastifyRequest } from 'fastify';
import type { TenantDb, UserRow } from '../../db/types.js';
import { updateProfile, UserConflictError } from './rules.js';
import { PROFILE_FIELDS, ProfileUpdateSchema, RECORD_FIELDS, refuseFields, UserSchema, type ApiUser } from './schemas.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Fields a user cannot change about themselves with PATCH /user (the password has its own route). */
const PROHIBITED = ['id', 'username', 'password', ...RECORD_FIELDS.slice(1)];


export interface UserRouteOptions {
  /**
   * Inside the transaction of a change of one's own profile: the mail module's notice to an old
   * address (given by the app, so that this module does not depend on mail). Returns whether mail
   * was queued (the worker is then woken after the commit).
   */
  onProfileChange?: (request: FastifyRequest, trx: TenantDb, before: UserRow, after: UserRow) => Promise<boolean>;
  /** After the commit of a change that queued mail. */
  afterMailQueued?: (request: FastifyRequest) => void;
}

/** The users module's routes: the caller's own record (GET /user, of the original interface) and its self-service extensions. */
const userRoutes: FastifyPluginAsyncTypebox<UserRouteOptions> = async (app, { onProfileChange, afterMailQueued }) => {
  // HOT PATH (see docs/architecture.md). The answer's JSON is made by this route's own
  // response serializer once per user object rather than once per request (profile: 1.5 us and
  // 2.4 KB of garbage per request). The verifier keeps one user object per token row it read and makes
  // a new one when the row or the user changes, so an entry lives exactly as long as what it shows
  // is current. (Kept as bytes in a Buffer of its own it measured no faster, and weighs more.)
  const answers = new WeakMap<ApiUser, string>();
  const getUser = {
    operationId: 'getUser',
    summary: 'The current user',
    description: "The caller's own record: exactly these 17 fields, in this order, with no envelope.",
    response: { 200: UserSchema },
  };
  app.get('/user', { config: { requires: 'user:read' }, schema: getUser }, (request, reply) => {
    const { user } = callerOf(request);
    let answer = answers.get(user);
    if (answer === undefined) {
      answer = reply.serializeInput(user as unknown as Record<string, unknown>, '200') as string;
      answers.set(user, answer);
    }
    // Already JSON: sent as it is, past the type provider's view of the reply as an ApiUser.
    (reply as FastifyReply).header('content-type', JSON_TYPE).send(answer);
  });

  // PATCH /user (extension): the caller changes their own profile; answers like GET /user.
  app.patch(
    '/user',
    {
      config: { requires: 'user:write' },
      schema: {
        operationId: 'updateUser',
        summary: 'Change my profile',
        description: 'Changes any of the profile fields of the caller; answers like GET /user.',
        body: ProfileUpdateSchema,
        response: { 200: UserSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      refuseFields(request.body, PROHIBITED);
      const changes = Object.fromEntries(
        PROFILE_FIELDS.filter((field) => Object.hasOwn(request.body, field)).map((field) => [field, request.body[field]]),
      );
      try {
        let queued = false;
        const afterChange = onProfileChange && (async (trx: TenantDb, before: UserRow, after: UserRow) => (queued = (await onProfileChange(request, trx, before, after)) || queued));
        const answer = await updateProfile(request.tenant.db, caller.user.id, changes, afterChange);
        if (queued) afterMailQueued?.(request);
        return answer;
      } catch (err) {
        if (err instanceof UserConflictError) throw errors.validation(err.fieldErrors);
        throw err;
      }
    },
  );
};

export default userRoutes;
