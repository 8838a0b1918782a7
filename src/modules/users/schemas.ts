import Type, { type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { compileObjectValidator, StoredText } from '../../lib/validation.js';
import { toApiTimestamp } from '../../lib/time.js';
import type { SessionUser } from './queries.js';

// The user resource, defined once: its fields with the rules their input follows. GET /user's
// answer, the request bodies that set them, the static types, the serializer, the OpenAPI
// document and (generated from it) the typed client all come from these schemas.

const Name = StoredText({ minLength: 1, maxLength: 255 });
const NullableText = Type.Union([StoredText({ maxLength: 255 }), Type.Null()]);
const NullableId = Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()]);
/** No whitespace, no '|' (the token separator), no U+0000 (see StoredText). */
export const Username = StoredText({ minLength: 1, maxLength: 255, pattern: '^[^\\s|\\u0000]+$' });
/** The length rule of every password that is set (PUT /user/password, the CLI, people). */
export const NewPassword = Type.String({ minLength: 8, maxLength: 1024 });

/** The fields a user changes about themselves (PATCH /user), in GET /user's order. */
const profileFields = {
  email: StoredText({ format: 'email', maxLength: 255 }),
  firstname: Name,
  lastname: Name,
  gender_id: NullableId,
  type_id: NullableId,
  phonenumber: NullableText,
  phonenumber_mobile: NullableText,
  street: NullableText,
  housenumber: NullableText,
  zip: NullableText,
  city: NullableText,
  is_vegetarian: Type.Boolean(),
  can_swimm: Type.Boolean(),
};
export type ProfileField = keyof typeof profileFields;
export const PROFILE_FIELDS = Object.keys(profileFields) as ProfileField[];

/** GET /user's shape (api.md 2.1): exactly these 17 fields, in this order. */
export const UserSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  ...profileFields,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ApiUser = Static<typeof UserSchema>;

/** PATCH /user: any profile field. */
export const ProfileUpdateSchema = Type.Partial(Type.Object(profileFields));
export type ProfileUpdate = Static<typeof ProfileUpdateSchema>;

const { email, firstname, lastname, ...optionalProfile } = profileFields;
/** A new user (the CLI; people with a login): username, e-mail and names required. */
export const NewUserSchema = Type.Object({
  username: Username,
  email,
  firstname,
  lastname,
  ...Type.Partial(Type.Object(optionalProfile)).properties,
  password: NewPassword,
});
export type NewUser = Static<typeof NewUserSchema>;
export const validateNewUser = compileObjectValidator<NewUser>(NewUserSchema);

declare module '../../access/caller.js' {
  /** A request's caller carries their GET /user record. */
  interface CallerProfile extends ApiUser {}
}

/** A row as GET /user shows it. */
export function toApiUser(row: SessionUser): ApiUser {
  return {
    id: Number(row.id),
    username: row.username,
    email: row.email,
    firstname: row.firstname,
    lastname: row.lastname,
    gender_id: row.gender_id === null ? null : Number(row.gender_id),
    type_id: row.type_id === null ? null : Number(row.type_id),
    phonenumber: row.phonenumber,
    phonenumber_mobile: row.phonenumber_mobile,
    street: row.street,
    housenumber: row.housenumber,
    zip: row.zip,
    city: row.city,
    is_vegetarian: Boolean(row.is_vegetarian),
    can_swimm: Boolean(row.can_swimm),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}
