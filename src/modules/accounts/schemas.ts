import Type from 'typebox';
import { errors, fieldMessages, type FieldErrors } from '../../errors.js';
import { Envelope, Timestamp } from '../../http/schemas.js';
import { compileObjectValidator } from '../../lib/validation.js';
import { LoginAnswerSchema, SessionUserSchema } from '../auth/schemas.js';
import { NewPassword, Username } from '../users/schemas.js';

const Token = Type.String({ description: 'The 43 characters after `#reset=` or `#invitation=` in the mailed link' });

/** POST /password/forgot: any string gets the same answer. */
export const ForgotRequestSchema = Type.Object({ email: Type.String({ description: "The address of the account; case doesn't matter" }) });

export const ForgotAnswerSchema = Type.Object({
  success: Type.Literal(true),
  message: Type.Literal('If the address is known, a link is on its way.'),
});

const NewPasswordFields = {
  password: NewPassword,
  password_confirmation: Type.String({ maxLength: 1024, description: 'The same as password' }),
};

/** POST /password/reset (the OpenAPI document's view; the route checks the token before the rest). */
export const ResetRequestSchema = Type.Object({ token: Token, ...NewPasswordFields });

/** POST /invitation/check. */
export const CheckRequestSchema = Type.Object({ token: Token });

/** POST /invitation/accept (the token is checked before the rest). */
export const AcceptRequestSchema = Type.Object({ token: Token, username: Username, ...NewPasswordFields });

/**
 * The answer that signs someone in: with X-XSRF-TOKEN (the session form) the user and a new session
 * cookie, no token in the body; without it (the token form) exactly POST /login's answer.
 */
export const SignedInAnswerSchema = Type.Union([Envelope(Type.Object({ user: SessionUserSchema })), LoginAnswerSchema], {
  description: 'Session form (X-XSRF-TOKEN sent): the user, and the session cookie. Token form: as POST /login answers, no cookie.',
});

const Name = { firstname: Type.String(), lastname: Type.String() };
export const InvitationFactsSchema = Envelope(
  Type.Object({
    ...Name,
    tenant: Type.Object({ name: Type.String() }),
    inviter: Type.Union([Type.Object(Name), Type.Null()], { description: 'Who invited; null once that person has been erased' }),
  }),
);

export const InvitationAnswerSchema = Envelope(
  Type.Object({ invitation: Type.Object({ person_id: Type.Integer(), expires_at: Timestamp }) }),
);

const passwordFields = compileObjectValidator<Record<string, unknown>>(Type.Object(NewPasswordFields));
const loginFields = compileObjectValidator<Record<string, unknown>>(Type.Object({ username: Username, ...NewPasswordFields }));

/** The rules of the new password (and username), after the token was found live: 422 with every field's messages. */
export function requireNewLogin(body: Record<string, unknown>, withUsername: boolean): { username: string; password: string } {
  const { token: _token, ...fields } = body;
  const result = (withUsername ? loginFields : passwordFields)(fields);
  const problems: FieldErrors = result.ok ? {} : { ...result.fieldErrors };
  if (problems.password === undefined && typeof body.password === 'string' && body.password !== body.password_confirmation) {
    problems.password = [fieldMessages.confirmationMismatch('password')];
  }
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  return { username: String(body.username ?? ''), password: String(body.password) };
}

/** A body as these routes read it: an object, else nothing (the token is then missing). */
export const bodyFields = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
