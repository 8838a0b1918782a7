import Type, { type Static } from 'typebox';
import { NewTokenSchema, type IssuedToken } from '../tokens/schemas.js';
import type { ApiUser } from '../users/schemas.js';

/** POST /login's body: present strings, at most 255 and 1024 characters (else 422). */
export const LoginRequestSchema = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 255 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

/** The answer of POST /login, also given by a password change (a fresh login token). */
export const LoginAnswerSchema = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  data: Type.Object({
    id: Type.Integer(),
    username: Type.String(),
    email: Type.String(),
    firstname: Type.String(),
    lastname: Type.String(),
    api_key: Type.String(),
  }),
  api_key: NewTokenSchema,
});
export type LoginAnswer = Static<typeof LoginAnswerSchema>;

/** POST /login's success body, fields in the original service's order: id, username, email, firstname, lastname, api_key. */
export function toLoginAnswer(user: Pick<ApiUser, 'id' | 'username' | 'email' | 'firstname' | 'lastname'>, issued: IssuedToken): LoginAnswer {
  return {
    success: true,
    message: 'success',
    data: {
      id: Number(user.id),
      username: user.username,
      email: user.email,
      firstname: user.firstname,
      lastname: user.lastname,
      api_key: issued.plainTextToken,
    },
    api_key: issued,
  };
}

/** The signed-in user, as a session's answers show it: never a token. */
export const SessionUserSchema = Type.Object({ id: Type.Integer(), username: Type.String(), email: Type.String(), firstname: Type.String(), lastname: Type.String() });
