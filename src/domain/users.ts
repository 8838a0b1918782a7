import Type, { type Static } from 'typebox';
import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../db/types.js';
import { findUserByEmail, findUserByUsername, insertUser, type SessionUser, type UserRow } from '../db/users.js';
import type { FieldErrors } from '../errors.js';
import { compileObjectValidator, StoredText } from '../validation.js';
import { hashPassword } from './passwords.js';
import { toApiTimestamp, toDbTimestamp } from './time.js';

const text = (maxLength = 255) => StoredText({ maxLength });
const optionalText = () => Type.Optional(Type.Union([text(), Type.Null()]));
const optionalId = () => Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()]));

/** The profile fields a user has besides id, username, password and timestamps. */
export const ProfileFields = {
  email: StoredText({ format: 'email', maxLength: 255 }),
  firstname: StoredText({ minLength: 1, maxLength: 255 }),
  lastname: StoredText({ minLength: 1, maxLength: 255 }),
  gender_id: optionalId(),
  type_id: optionalId(),
  phonenumber: optionalText(),
  phonenumber_mobile: optionalText(),
  street: optionalText(),
  housenumber: optionalText(),
  zip: optionalText(),
  city: optionalText(),
  is_vegetarian: Type.Optional(Type.Boolean()),
  can_swimm: Type.Optional(Type.Boolean()),
};

export const NewUserSchema = Type.Object({
  // No whitespace, no '|' (the token separator), no U+0000 (see StoredText).
  username: StoredText({ minLength: 1, maxLength: 255, pattern: '^[^\\s|\\u0000]+$' }),
  ...ProfileFields,
  password: Type.String({ minLength: 8, maxLength: 1024 }),
});
export type NewUser = Static<typeof NewUserSchema>;

export const validateNewUser = compileObjectValidator<NewUser>(NewUserSchema);

/** GET /user's shape: exactly these 17 fields, in this order. */
export interface ApiUser {
  id: number;
  username: string;
  email: string;
  firstname: string;
  lastname: string;
  gender_id: number | null;
  type_id: number | null;
  phonenumber: string | null;
  phonenumber_mobile: string | null;
  street: string | null;
  housenumber: string | null;
  zip: string | null;
  city: string | null;
  is_vegetarian: boolean;
  can_swimm: boolean;
  created_at: string;
  updated_at: string;
}

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

export const isActive = (row: Pick<UserRow, 'is_active'>): boolean => Boolean(row.is_active);

export class UserConflictError extends Error {
  override name = 'UserConflictError';
  constructor(readonly fieldErrors: FieldErrors) {
    super(Object.values(fieldErrors).flat().join(' '));
  }
}

/** Creates a user from validated input; a taken username or e-mail is a UserConflictError. */
export async function createUser(db: Kysely<TenantDatabase>, input: NewUser, now = new Date()): Promise<UserRow> {
  const conflicts: FieldErrors = {};
  if (await findUserByUsername(db, input.username)) conflicts.username = ['The username has already been taken.'];
  if (await findUserByEmail(db, input.email)) conflicts.email = ['The email has already been taken.'];
  if (Object.keys(conflicts).length > 0) throw new UserConflictError(conflicts);
  const timestamp = toDbTimestamp(now);
  return insertUser(db, {
    username: input.username,
    email: input.email,
    firstname: input.firstname,
    lastname: input.lastname,
    gender_id: input.gender_id ?? null,
    type_id: input.type_id ?? null,
    phonenumber: input.phonenumber ?? null,
    phonenumber_mobile: input.phonenumber_mobile ?? null,
    street: input.street ?? null,
    housenumber: input.housenumber ?? null,
    zip: input.zip ?? null,
    city: input.city ?? null,
    is_vegetarian: input.is_vegetarian ? 1 : 0,
    can_swimm: input.can_swimm ? 1 : 0,
    password: await hashPassword(input.password),
    is_active: 1,
    created_at: timestamp,
    updated_at: timestamp,
  });
}
