import Type, { type Static } from 'typebox';
import { ABILITIES } from '../../http/abilities.js';
import { Timestamp } from '../../http/schemas.js';
import { StoredText } from '../../lib/validation.js';

// The token resource, defined once (see modules/users/schemas.ts for the habit).

/** The token record as the original service shows it, fields in that order. */
export const AccessTokenSchema = Type.Object({
  name: Type.String(),
  abilities: Type.Array(Type.String()),
  tokenable_id: Type.Integer(),
  tokenable_type: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  id: Type.Integer(),
  /** Only present when the token expires (tokens made by POST /api/tokens with expires_at). */
  expires_at: Type.Optional(Timestamp),
});
export type AccessTokenRecord = Static<typeof AccessTokenSchema>;

export const NewTokenSchema = Type.Object({
  accessToken: AccessTokenSchema,
  plainTextToken: Type.String({ description: '<id>|<secret>; shown once' }),
});
export type IssuedToken = Static<typeof NewTokenSchema>;

/** A token as GET /api/tokens lists it: never its secret or hash. */
export const TokenListItemSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  abilities: Type.Array(Type.String()),
  last_used_at: Type.Union([Timestamp, Type.Null()]),
  expires_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
  current: Type.Boolean({ description: 'true for the token this request was made with' }),
});
export type TokenListItem = Static<typeof TokenListItemSchema>;

/** POST /tokens, and `groupadmin token create` (which requires abilities). */
export const NewTokenRequestSchema = Type.Object({
  name: StoredText({ minLength: 1, maxLength: 255 }),
  abilities: Type.Optional(
    Type.Array(Type.Union(ABILITIES.map((ability) => Type.Literal(ability))), { minItems: 1, maxItems: ABILITIES.length }),
  ),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
});
export type NewTokenRequest = Static<typeof NewTokenRequestSchema>;
