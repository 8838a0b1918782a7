import Type, { type Static, type TSchema } from 'typebox';
import { errors, fieldMessages, type FieldErrors } from '../../errors.js';
import { Timestamp } from '../../http/schemas.js';
import { compileObjectValidator, StoredText } from '../../lib/validation.js';
import { toApiTimestamp } from '../../lib/time.js';
import type { SessionUser } from '../../db/types.js';

// The user resource, defined once: each field's type on the wire and the rules its input
// follows. GET /user's answer, the request bodies that set the fields, the static types, the
// serializer, the OpenAPI document and (generated from it) the typed client all come from here.
// Answers carry the plain types: rows that older data or an import brought in are shown as they
// are, never refused on the way out.

interface Field<Out extends TSchema, In extends TSchema> {
  out: Out;
  in: In;
}
const field = <Out extends TSchema, In extends TSchema>(out: Out, input: In): Field<Out, In> => ({ out, in: input });

const NullableString = Type.Union([Type.String(), Type.Null()]);
/** A first or last name: 1-255 characters, and within MAX_NAME_BYTES with its sort key (lib/validation.ts). */
const name = () =>
  field(Type.String(), StoredText({ minLength: 1, maxLength: 255, format: 'person-name', description: '1-255 characters; the name and its sort key together at most 1,200 bytes of UTF-8' }));
const nullableText = () => field(NullableString, Type.Union([StoredText({ maxLength: 255 }), Type.Null()]));
const nullableId = () =>
  field(Type.Union([Type.Integer(), Type.Null()]), Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()]));
const flag = () => field(Type.Boolean(), Type.Boolean());

/** No whitespace, no '|' (the token separator), no U+0000 (see StoredText). */
export const Username = StoredText({ minLength: 1, maxLength: 255, pattern: '^[^\\s|\\u0000]+$' });
/** The length rule of every password that is set (PUT /user/password, the CLI, people). */
export const NewPassword = Type.String({ minLength: 8, maxLength: 1024 });

/** An e-mail address as it is set (PATCH /user, people). */
export const Email = StoredText({ format: 'email', maxLength: 255 });

/** The fields a user changes about themselves (PATCH /user), in GET /user's order. */
const profile = {
  email: field(Type.String(), Email),
  firstname: name(),
  lastname: name(),
  gender_id: nullableId(),
  type_id: nullableId(),
  phonenumber: nullableText(),
  phonenumber_mobile: nullableText(),
  street: nullableText(),
  housenumber: nullableText(),
  zip: nullableText(),
  city: nullableText(),
  is_vegetarian: flag(),
  can_swimm: flag(),
};
type Profile = typeof profile;
export type ProfileField = keyof Profile;
export const PROFILE_FIELDS = Object.keys(profile) as ProfileField[];

const outputs = { ...Object.fromEntries(PROFILE_FIELDS.map((key) => [key, profile[key].out])) } as { [K in ProfileField]: Profile[K]['out'] };
const inputs = { ...Object.fromEntries(PROFILE_FIELDS.map((key) => [key, profile[key].in])) } as { [K in ProfileField]: Profile[K]['in'] };

/** GET /user's shape, as the original service answers it: exactly these 17 fields, in this order. */
export const UserSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  ...outputs,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ApiUser = Static<typeof UserSchema>;

/** PATCH /user: any profile field. */
export const ProfileUpdateSchema = Type.Partial(Type.Object(inputs));

/** Fields of the record that no profile change writes: PATCH /user refuses them, and the people routes as it. */
export const RECORD_FIELDS = ['id', 'is_active', 'created_at', 'updated_at'] as const;

/**
 * 422 `The <field> field is prohibited.` for each of `fields` the body carries, rather than a
 * success that silently left them as they were.
 */
export function refuseFields(body: object, fields: readonly string[]): void {
  const prohibited: FieldErrors = {};
  for (const field of fields) {
    if (Object.hasOwn(body, field)) prohibited[field] = [fieldMessages.prohibited(field)];
  }
  if (Object.keys(prohibited).length > 0) throw errors.validation(prohibited);
}
export type ProfileUpdate = Static<typeof ProfileUpdateSchema>;

const { email, firstname, lastname, ...optionalProfile } = inputs;
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

declare module '../../http/caller.js' {
  /** A request's caller carries their GET /user record. */
  interface CallerProfile extends ApiUser {}
}

/** A row as GET /user shows it. */
export function toApiUser(row: SessionUser): ApiUser {
  return {
    id: Number(row.id),
    // Only a person with a login has a token, and such a person has both.
    username: row.username ?? '',
    email: row.email ?? '',
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
