import { useApp } from '../context.js';
import type { Words } from '../i18n/index.js';
import { Field, FormErrors, YesNo, type FieldErrors } from './field.js';

/** A profile as GET /user and GET /people/{id} show it (a person adds `birthday`). */
export interface StoredProfile {
  email: string | null;
  firstname: string;
  lastname: string;
  birthday?: string | null;
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
}

type Answer = 'is_vegetarian' | 'can_swimm';
export type ProfileKey = keyof StoredProfile;

/** The profile as its form holds it: every text as typed, the yes/no questions possibly unanswered. */
export type ProfileForm = { [K in Exclude<ProfileKey, Answer>]: string } & { [K in Answer]: boolean | null };

/** Which profile the form edits: a person's has a birthday, and an e-mail address that may be removed. */
export interface ProfileKind {
  birthday: boolean;
  /** An emptied e-mail field means "no address" (a child without a login), not an empty one. */
  emailMayBeNull: boolean;
  /** The browser may fill in the signed-in person's own details (never into a ward's profile). */
  ownDetails: boolean;
  /** Fields shown but not changed by this reader (the login-field rule), with the reason beside them. */
  locked?: { keys: readonly ProfileKey[]; hint: string };
}

type Word = { [K in keyof Words]: Words[K] extends string ? K : never }[keyof Words];
const LABELS: Record<ProfileKey, Word> = {
  firstname: 'firstname',
  lastname: 'lastname',
  birthday: 'birthday',
  email: 'email',
  phonenumber: 'phonenumber',
  phonenumber_mobile: 'phonenumberMobile',
  street: 'street',
  housenumber: 'housenumber',
  zip: 'zip',
  city: 'city',
  gender_id: 'genderId',
  type_id: 'typeId',
  is_vegetarian: 'vegetarian',
  can_swimm: 'swimmer',
};

/** A profile field's label in the reader's words (a change record names it by its key); undefined for another key. */
export const profileLabel = (key: string, words: Words): string | undefined => (Object.hasOwn(LABELS, key) ? words[LABELS[key as ProfileKey]] : undefined);

/** The fields of a profile, in the order the form shows them. */
const keysOf = (kind: ProfileKind): ProfileKey[] => (Object.keys(LABELS) as ProfileKey[]).filter((key) => key !== 'birthday' || kind.birthday);

export function formOf(stored: StoredProfile): ProfileForm {
  const text = (value: string | number | null | undefined) => (value === null || value === undefined ? '' : String(value));
  return {
    firstname: stored.firstname,
    lastname: stored.lastname,
    birthday: text(stored.birthday),
    email: text(stored.email),
    phonenumber: text(stored.phonenumber),
    phonenumber_mobile: text(stored.phonenumber_mobile),
    street: text(stored.street),
    housenumber: text(stored.housenumber),
    zip: text(stored.zip),
    city: text(stored.city),
    gender_id: text(stored.gender_id),
    type_id: text(stored.type_id),
    is_vegetarian: stored.is_vegetarian,
    can_swimm: stored.can_swimm,
  };
}

/**
 * A field's value as the API takes it: an emptied text is null. A number field holding
 * something else goes as typed, so that the API's message names the field.
 */
function apiValue(key: ProfileKey, form: ProfileForm, kind: ProfileKind): unknown {
  const value = form[key];
  if (typeof value !== 'string') return value;
  if (key === 'firstname' || key === 'lastname') return value;
  if (key === 'email' && !kind.emailMayBeNull) return value;
  if (value === '') return null;
  if (key === 'gender_id' || key === 'type_id') return /^\d{1,10}$/.test(value) ? Number(value) : value;
  return value;
}

/** Only what the form changed: a write never overwrites what it did not touch. */
export function changesOf(stored: StoredProfile, form: ProfileForm, kind: ProfileKind): Partial<Record<ProfileKey, unknown>> {
  const changes: Partial<Record<ProfileKey, unknown>> = {};
  for (const key of keysOf(kind)) {
    if (kind.locked?.keys.includes(key)) continue;
    const value = apiValue(key, form, kind);
    // An unanswered question is left as it is.
    if (value === null && (key === 'is_vegetarian' || key === 'can_swimm')) continue;
    if (value !== (stored[key] ?? null)) changes[key] = value;
  }
  return changes;
}

/** Changes in words ("City: Bern"), for saying what was not saved. */
export function describeChanges(changes: Partial<Record<ProfileKey, unknown>>, words: Words): string[] {
  const shown = (value: unknown) => (value === true ? words.yes : value === false ? words.no : value === null ? words.empty : String(value));
  return (Object.keys(changes) as ProfileKey[]).map((key) => `${words[LABELS[key]]}: ${shown(changes[key])}`);
}

interface Props {
  form: ProfileForm;
  errors: FieldErrors;
  kind: ProfileKind;
  onChange: <K extends ProfileKey>(key: K, value: ProfileForm[K]) => void;
}

/** The profile's fields with their errors: the own profile and a ward's share them. */
export function PersonFields({ form, errors, kind, onChange }: Props) {
  const { words } = useApp();
  const text = (key: Exclude<ProfileKey, Answer>, options: { type?: 'email' | 'tel' | 'date'; autocomplete?: string; numeric?: boolean } = {}) => (
    <Field
      label={words[LABELS[key]]}
      name={key}
      value={form[key]}
      errors={errors[key]}
      type={options.type}
      inputMode={options.numeric ? 'numeric' : undefined}
      autocomplete={kind.ownDetails ? options.autocomplete : 'off'}
      readOnly={kind.locked?.keys.includes(key)}
      hint={kind.locked?.keys.includes(key) ? kind.locked.hint : undefined}
      onInput={(value) => onChange(key, value)}
    />
  );
  const answer = (key: Answer) => <YesNo legend={words[LABELS[key]]} name={key} value={form[key]} errors={errors[key]} onChange={(value) => onChange(key, value)} />;
  return (
    <>
      <FormErrors errors={errors} shown={keysOf(kind)} />
      {text('firstname', { autocomplete: 'given-name' })}
      {text('lastname', { autocomplete: 'family-name' })}
      {kind.birthday && text('birthday', { type: 'date', autocomplete: 'bday' })}
      {text('email', { type: 'email', autocomplete: 'email' })}
      <div class="field-row">
        {text('phonenumber', { type: 'tel', autocomplete: 'tel' })}
        {text('phonenumber_mobile', { type: 'tel', autocomplete: 'mobile tel' })}
      </div>
      <div class="field-row">
        {text('street', { autocomplete: 'address-line1' })}
        {text('housenumber')}
      </div>
      <div class="field-row">
        {text('zip', { autocomplete: 'postal-code' })}
        {text('city', { autocomplete: 'address-level2' })}
      </div>
      <div class="field-row">
        {text('gender_id', { numeric: true })}
        {text('type_id', { numeric: true })}
      </div>
      {answer('is_vegetarian')}
      {answer('can_swimm')}
    </>
  );
}
