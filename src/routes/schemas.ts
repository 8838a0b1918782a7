import Type, { type TSchema } from 'typebox';

// Response shapes shared by several routes. Property order is the order on the wire
// (the serializer follows the schema), which the original interface fixes.

const Timestamp = Type.String({ description: 'UTC, six fraction digits, e.g. 2026-11-21T09:30:05.123000Z' });
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

export const UserSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: Type.String(),
  firstname: Type.String(),
  lastname: Type.String(),
  gender_id: NullableInteger,
  type_id: NullableInteger,
  phonenumber: NullableString,
  phonenumber_mobile: NullableString,
  street: NullableString,
  housenumber: NullableString,
  zip: NullableString,
  city: NullableString,
  is_vegetarian: Type.Boolean(),
  can_swimm: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const AccessTokenSchema = Type.Object({
  name: Type.String(),
  abilities: Type.Array(Type.String()),
  tokenable_id: Type.Integer(),
  tokenable_type: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  id: Type.Integer(),
  expires_at: Type.Optional(Timestamp),
});

export const NewTokenSchema = Type.Object({
  accessToken: AccessTokenSchema,
  plainTextToken: Type.String({ description: '<id>|<secret>; shown once' }),
});

/** The success envelope of api.md section 1: success, message, data. */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ success: Type.Boolean(), message: Type.String(), data });

/** The answer of POST /login, also given by a password change (a fresh login token). */
export const LoginSuccessSchema = Type.Object({
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

// Error bodies (decisions.md section 5), for the OpenAPI document.

export const ErrorSchema = Type.Object(
  { success: Type.Literal(false), message: Type.String() },
  { additionalProperties: false },
);

export const ValidationErrorSchema = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String({ description: 'The first message, plus " (and N more errors)"' }),
    errors: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'field -> messages' }),
  },
  { additionalProperties: false },
);

export const UnauthenticatedSchema = Type.Object(
  { message: Type.Literal('Unauthenticated.') },
  { additionalProperties: false },
);

export const TooManyAttemptsSchema = Type.Object(
  { message: Type.Literal('Too Many Attempts.'), retry_after: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);
