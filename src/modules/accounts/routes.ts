import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import { callerOf } from '../../http/auth.js';
import { IdParams, ok } from '../../http/before-body.js';
import { bodyCheckedBy } from '../../http/json-body.js';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { forbiddenAnswer, idOf, type ResourceRouteOptions } from '../../http/route-kit.js';
import { ValidationErrorSchema } from '../../http/schemas.js';
import { isSessionForm, setNewXsrfCookie, setSessionCookie } from '../../http/session.js';
import { toLoginAnswer } from '../auth/schemas.js';
import type { MailHub } from '../mail/settings.js';
import type { Access } from '../permissions/rules.js';
import { revokePresentedToken } from '../tokens/rules.js';
import { accountMessages } from './messages.js';
import {
  acceptInvitation,
  checkInvitation,
  invitationIsLive,
  invitePerson,
  requestPasswordReset,
  resetPassword,
  resetTokenIsLive,
  findVisiblePerson,
  type SignedIn,
  type TenantFactsReader,
} from './rules.js';
import {
  AcceptRequestSchema,
  bodyFields,
  CheckRequestSchema,
  ForgotAnswerSchema,
  ForgotRequestSchema,
  InvitationAnswerSchema,
  InvitationFactsSchema,
  requireNewLogin,
  ResetRequestSchema,
  SignedInAnswerSchema,
} from './schemas.js';

export interface AccountRouteOptions extends ResourceRouteOptions<Access> {
  mail: MailHub;
  tokenPrefix: string;
  sessions: { idleMs: number; rememberMs: number };
  /** The tenant's name and language for its mails (kept for a moment: notifications/letterhead.ts). */
  letterheads: TenantFactsReader;
}

const tags = ['extensions'];

/**
 * These routes read the whole body themselves: the token first, so that an invalid token is the
 * one answer (422 on `token` alone), whatever else the body holds. The schemas document the fields.
 */
const readBodyAsIs = bodyCheckedBy((body) => ({ ok: true, value: body }));

/**
 * The unauthenticated routes of accounts use no token: a bearer token sent along is not the caller
 * (so these answers, which may carry a new token, are never kept for an Idempotency-Key replay).
 */
const withoutCaller = (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
  request.auth = null;
  done();
};

/** Password reset and invitations: /password/forgot, /password/reset, /people/{id}/invitation, /invitation/check|accept. */
const accountRoutes: FastifyPluginAsyncTypebox<AccountRouteOptions> = async (app, { accessOf, mail, tokenPrefix, sessions, letterheads }) => {
  refuseUnknownQueryParameters(app);
  const tenantFacts = (slug: string) => letterheads.of(slug);

  // A forgot-password request is answered before anything is looked up, and its work is done
  // afterwards: the answer takes the same time for a known and an unknown address. What is still
  // running when the app closes is waited for.
  const running = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...running]);
  });
  const afterAnswer = (request: FastifyRequest, email: string) => {
    const { db, slug } = request.tenant;
    const job = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => requestPasswordReset(db, mail, () => tenantFacts(slug), email))
      .then((queued) => {
        if (queued) mail.wake(slug);
      })
      .catch((err: unknown) => request.log.error({ err }, 'could not handle a forgotten password'))
      .finally(() => running.delete(job));
    running.add(job);
  };

  app.post(
    '/password/forgot',
    {
      config: { csrf: 'never' },
      onRequest: withoutCaller,
      schema: {
        tags,
        operationId: 'forgotPassword',
        summary: 'Ask for a password reset link',
        description:
          'Always 200 with the same answer, in the same time, for known and unknown addresses. An active person with a login and this address (case-insensitive) gets a mail with a link `/#reset=<token>` (valid 60 minutes, single use) that also names their username; at most 1 such mail a minute and 5 an hour per address. A new link voids the earlier ones. Unauthenticated; a session cookie is ignored.',
        security: [],
        body: ForgotRequestSchema,
        response: { 200: ForgotAnswerSchema },
      },
    },
    async (request) => {
      afterAnswer(request, request.body.email);
      return { success: true as const, message: accountMessages.forgotAnswer };
    },
  );

  /** Signs the user in: a new session cookie for the session form, POST /login's answer for the token form. */
  const signIn = (request: FastifyRequest, reply: FastifyReply, signedIn: SignedIn) => {
    if (!isSessionForm(request)) return toLoginAnswer(signedIn.user, signedIn.issued);
    setSessionCookie(reply, request, signedIn.issued.plainTextToken, 'short', sessions.rememberMs);
    setNewXsrfCookie(reply, request);
    return ok({ user: signedIn.user });
  };
  const sessionKindOf = (request: FastifyRequest) => (isSessionForm(request) ? { session: 'short' as const } : {});

  /** A session cookie sent along is never used, and its token, if valid, ends. */
  const dropPresentedSession = async (request: FastifyRequest) => {
    if (request.sessionCookie !== null) await revokePresentedToken(request.tenant.db, request.sessionCookie);
  };

  const signInDescription =
    'With the header X-XSRF-TOKEN (the session form: it must equal the XSRF-TOKEN cookie, and an Origin must be the own one or that of the tenant\'s PUBLIC_URL, else 419) the answer is POST /session\'s: the user and a new session cookie. Without it (the token form) the answer is exactly POST /login\'s, with no cookie and no CSRF check. A session cookie sent along is ignored and its token deleted.';

  app.post(
    '/password/reset',
    {
      config: { csrf: 'session-form', ignoresSessionCookie: true },
      onRequest: withoutCaller,
      validatorCompiler: readBodyAsIs,
      schema: {
        tags,
        operationId: 'resetPassword',
        summary: 'Set a new password with a reset link',
        description: `Sets the password (8 to 1,024 characters) of the reset link's user and ends every token and session of theirs, as a password change does; never activates a user. An unknown, used, voided or expired token (also a missing one): 422 on \`token\` alone, \`The reset link is invalid or has expired.\` ${signInDescription}`,
        security: [],
        body: ResetRequestSchema,
        response: { 200: SignedInAnswerSchema },
      },
    },
    async (request, reply) => {
      const { db } = request.tenant;
      await dropPresentedSession(request);
      const body = bodyFields(request.body);
      if (!(await resetTokenIsLive(db, body.token))) throw errors.invalidField('token', accountMessages.resetInvalid);
      const { password } = requireNewLogin(body, false);
      const signedIn = await resetPassword(db, body.token, password, { tokenPrefix, ...sessionKindOf(request) });
      if (!signedIn) throw errors.invalidField('token', accountMessages.resetInvalid);
      return signIn(request, reply, signedIn);
    },
  );

  app.post(
    '/people/:id/invitation',
    {
      config: { requires: 'people:write', takesNoBody: true },
      schema: {
        tags: ['people'],
        operationId: 'invitePerson',
        summary: 'Invite a person by e-mail',
        description:
          "Mails the person a link `/#invitation=<token>` (valid 7 days, single use) that names the inviter; a new invitation voids the earlier one. Needs the right to change the person, `write` on every group where they hold a role of `read` or more that has not ended, and the right to change each of their wards (being their guardian is not enough: 403). 422 on `person`: deactivated, or a login already; on `email`: no address, or one that was refused before. Takes no body.",
        params: IdParams,
        response: {
          202: InvitationAnswerSchema,
          403: forbiddenAnswer('who may invite'),
          422: { ...ValidationErrorSchema, description: 'The person is deactivated. / The person already has a login. (on person); The person has no e-mail address. / The e-mail address was refused before. (on email)' },
        },
      },
    },
    async (request, reply) => {
      const access = await accessOf(request);
      const { db, slug } = request.tenant;
      const person = await findVisiblePerson(db, access, idOf(request));
      if (!person) throw errors.notFound('Person');
      const { user } = callerOf(request);
      const invitation = await invitePerson(db, access, person, user, { hub: mail, tenantOf: () => tenantFacts(slug) });
      mail.wake(slug);
      return reply.code(202).send(ok({ invitation }));
    },
  );

  app.post(
    '/invitation/check',
    {
      config: { csrf: 'never' },
      onRequest: withoutCaller,
      validatorCompiler: readBodyAsIs,
      schema: {
        tags,
        operationId: 'checkInvitation',
        summary: 'Who an invitation is for',
        description:
          'The invited person\'s names, the tenant\'s name and who invited them, so the page can ask "Are you <firstname> <lastname>?". An unknown, used, voided or expired token (also a missing one): 422 on `token`, `The invitation is invalid or has expired.` Unauthenticated; a session cookie is ignored.',
        security: [],
        body: CheckRequestSchema,
        response: { 200: InvitationFactsSchema },
      },
    },
    async (request) => {
      const facts = await checkInvitation(request.tenant.db, bodyFields(request.body).token);
      if (!facts) throw errors.invalidField('token', accountMessages.invitationInvalid);
      const tenant = await tenantFacts(request.tenant.slug);
      return ok({ firstname: facts.firstname, lastname: facts.lastname, tenant: { name: tenant.name }, inviter: facts.inviter });
    },
  );

  app.post(
    '/invitation/accept',
    {
      config: { csrf: 'session-form', ignoresSessionCookie: true },
      onRequest: withoutCaller,
      validatorCompiler: readBodyAsIs,
      schema: {
        tags,
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation',
        description: `The invited person gets a login: a username (unique, case-insensitive; no whitespace or |) and a password (8 to 1,024 characters). An invalid token (also a missing one): 422 on \`token\` alone, \`The invitation is invalid or has expired.\` ${signInDescription}`,
        security: [],
        body: AcceptRequestSchema,
        response: { 200: SignedInAnswerSchema },
      },
    },
    async (request, reply) => {
      const { db } = request.tenant;
      await dropPresentedSession(request);
      const body = bodyFields(request.body);
      if (!(await invitationIsLive(db, body.token))) throw errors.invalidField('token', accountMessages.invitationInvalid);
      const { username, password } = requireNewLogin(body, true);
      const signedIn = await acceptInvitation(db, body.token, username, password, { tokenPrefix, ...sessionKindOf(request) });
      if (!signedIn) throw errors.invalidField('token', accountMessages.invitationInvalid);
      return signIn(request, reply, signedIn);
    },
  );
};

export default accountRoutes;
