import Type, { type Static } from 'typebox';
import { FormatParameter } from '../../http/download-format.js';
import { PagingQuery } from '../../http/paging.js';
import { Timestamp } from '../../http/schemas.js';
import { compileObjectValidator, StoredText, type Validation } from '../../lib/validation.js';
import { fieldMessages } from '../../errors.js';
import { MembershipGrantSchema, DaySchema } from '../memberships/schemas.js';
import { Email, NewPassword, ProfileUpdateSchema, toApiUser, UserSchema, Username } from '../users/schemas.js';
import type { UserRow } from '../../db/types.js';
import { hasLogin } from '../users/rules.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Birthday = Type.Union([DaySchema, Type.Null()]);

/**
 * A person: the 17 fields of GET /user in the same order, then `birthday`
 * and `has_login`. A person without a login has `username` (and possibly `email`) null.
 */
export const PersonSchema = Type.Object({
  ...UserSchema.properties,
  username: NullableString,
  email: NullableString,
  created_at: Timestamp,
  updated_at: Timestamp,
  birthday: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]),
  has_login: Type.Boolean(),
});
export type ApiPerson = Static<typeof PersonSchema>;

const profile = ProfileUpdateSchema.properties;

/** PATCH /people/{id}: as PATCH /user, plus username, birthday and (admins on the root) password. */
export const PersonUpdateSchema = Type.Object({
  ...Type.Partial(Type.Object({ ...Type.Required(Type.Object(profile)).properties, email: Type.Union([Email, Type.Null()]) })).properties,
  username: Type.Optional(Username),
  birthday: Type.Optional(Birthday),
  password: Type.Optional(NewPassword),
});
export type PersonUpdate = Static<typeof PersonUpdateSchema>;

const { firstname, lastname, ...optionalProfile } = Type.Required(Type.Object(profile)).properties;

/** POST /people: profile fields, an optional login, and the membership the new person starts with. */
export const NewPersonSchema = Type.Object({
  firstname,
  lastname,
  ...Type.Partial(Type.Object({ ...optionalProfile, email: Type.Union([Email, Type.Null()]) })).properties,
  birthday: Type.Optional(Birthday),
  username: Type.Optional(Username),
  password: Type.Optional(NewPassword),
  membership: Type.Optional(MembershipGrantSchema),
  guardian_of: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Instead of `membership`: the person the new one becomes guardian of' })),
});
export type NewPerson = Static<typeof NewPersonSchema>;

const checkNewPersonFields = compileObjectValidator<NewPerson>(NewPersonSchema);

/** POST /people's body: its fields, and exactly one of `membership` and `guardian_of` (a person nobody could see is never created). */
export function checkNewPerson(body: unknown): Validation<NewPerson> {
  return withExactlyOne(checkNewPersonFields(body), body, 'membership', 'guardian_of');
}

/** POST /people/{id}/guardians: the guardian by id, or by e-mail address (a parent the caller may not see yet). */
export const GuardianLinkSchema = Type.Object({
  guardian_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  email: Type.Optional(Type.Unsafe<string>({ ...Email, description: 'Instead of `guardian_id`: the e-mail address of the tenant\'s person to link (case-insensitive)' })),
});
type GuardianLink = { guardian_id: number } | { email: string };

const checkGuardianLinkFields = compileObjectValidator<GuardianLink>(GuardianLinkSchema);

export function checkGuardianLink(body: unknown): Validation<GuardianLink> {
  return withExactlyOne(checkGuardianLinkFields(body), body, 'guardian_id', 'email');
}

/**
 * A body's check with the rule that exactly one of `first` and `second` is present: neither is 422
 * on `first` (required when `second` is not present), both is 422 on `second` (it prohibits `first`),
 * besides any other field's errors.
 */
function withExactlyOne<T>(checked: Validation<T>, body: unknown, first: string, second: string): Validation<T> {
  const given = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const choice =
    first in given && second in given
      ? { [second]: [fieldMessages.prohibits(second, first)] }
      : !(first in given) && !(second in given)
        ? { [first]: [fieldMessages.requiredWithout(first, second)] }
        : {};
  if (Object.keys(choice).length === 0) return checked;
  return { ok: false, fieldErrors: { ...(checked.ok ? {} : checked.fieldErrors), ...choice } };
}

/** The forms of the people list: JSON, CSV, XLSX and vCard. */
export const PEOPLE_FORMATS = ['json', 'csv', 'xlsx', 'vcf'] as const;

const Bool = Type.Boolean();
export const PeopleQuery = Type.Object(
  {
    group_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    below: Type.Optional(Bool),
    role_type: Type.Optional(StoredText({ maxLength: 64 })),
    active_on: Type.Optional(DaySchema),
    ids: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}(,[0-9]{1,16}){0,199}$', maxLength: 3400 })),
    q: Type.Optional(StoredText({ minLength: 1, maxLength: 255 })),
    updated_since: Type.Optional(Type.String({ format: 'date-time' })),
    is_vegetarian: Type.Optional(Bool),
    can_swimm: Type.Optional(Bool),
    sort: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('-updated_at'), Type.Literal('id')])),
    format: FormatParameter(PEOPLE_FORMATS),
    ...PagingQuery,
  },
  { additionalProperties: false },
);
export type PeopleFilters = Static<typeof PeopleQuery>;

/**
 * GET /user's record with the person's own fields over it. Set one by one on the record rather
 * than spread into a new object: the spread cost 2.4 us a person, most of a page's mapping.
 */
export function toApiPerson(row: UserRow): ApiPerson {
  const person: Omit<ApiPerson, 'birthday' | 'has_login'> & Partial<ApiPerson> = toApiUser(row);
  person.username = row.username;
  person.email = row.email;
  person.birthday = row.birthday;
  person.has_login = hasLogin(row);
  return person as ApiPerson;
}
