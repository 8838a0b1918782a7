import { importMessages } from '../../errors.js';

/** The person fields a file may set, in the JSON order of a person. */
export const IMPORTED_FIELDS = [
  'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile', 'street',
  'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'birthday',
] as const;
export type ImportedField = (typeof IMPORTED_FIELDS)[number];

/**
 * A header name as it is compared: lowercased, accents removed (NFKD, combining marks dropped),
 * without spaces, hyphens and underscores. `Date de naissance`, `E-Mail` and `phonenumber_mobile`
 * become `datedenaissance`, `email` and `phonenumbermobile`.
 */
export const headerKey = (name: string): string =>
  name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[\s\-_]/gu, '');

/**
 * The names, besides the field names themselves, that spreadsheets kept in English, German and
 * French give each field. `Nr` is none: alone it is as often a member number as a house number.
 */
const SYNONYMS: Record<Exclude<ImportedField, 'username' | 'gender_id' | 'type_id'>, readonly string[]> = {
  firstname: ['First name', 'Vorname', 'Prénom'],
  lastname: ['Last name', 'Nachname'],
  email: ['E-Mail', 'Courriel'],
  birthday: ['Birthday', 'Date of birth', 'Geburtstag', 'Geburtsdatum', 'Date de naissance'],
  phonenumber: ['Phone', 'Telefon', 'Téléphone'],
  phonenumber_mobile: ['Mobile', 'Handy', 'Natel', 'Mobil', 'Portable'],
  street: ['Street', 'Strasse', 'Straße', 'Rue'],
  housenumber: ['House number', 'Hausnummer', 'Numéro'],
  zip: ['Zip', 'Postcode', 'PLZ', 'NPA', 'Code postal'],
  city: ['City', 'Ort', 'Wohnort', 'Localité', 'Ville'],
  is_vegetarian: ['Vegetarian', 'Vegetarier', 'Végétarien'],
  can_swimm: ['Can swim', 'Schwimmer', 'Kann schwimmen', 'Sait nager'],
};

/** `Name` and `Nom` mean the last name only beside a first-name column (alone they may be a full name). */
const LASTNAME_BESIDE_FIRSTNAME = ['Name', 'Nom'];

const FIELD_BY_KEY = new Map<string, ImportedField>([
  ...IMPORTED_FIELDS.map((field) => [headerKey(field), field] as const),
  ...Object.entries(SYNONYMS).flatMap(([field, names]) => names.map((name) => [headerKey(name), field as ImportedField] as const)),
]);

/** Columns of an export that the import cannot set: accepted and ignored, so an export re-imports as it is. */
const EXPORT_ONLY = new Set(['id', 'has_login', 'created_at', 'updated_at'].map(headerKey));

export interface Column {
  /** The header cell as the file has it (trimmed). */
  header: string;
  /** null: a column that is read and ignored. */
  field: ImportedField | null;
}

export interface Columns {
  columns: Column[];
  /** Headers that match no field, ignored at the caller's request. */
  ignored: string[];
}

/**
 * A header row -> the field of each column, or the problems that refuse the file (422 on `file`).
 * An unknown name is one of them unless `ignoreUnknown`; a password column and two columns that
 * mean one field always are.
 */
export function columnsOf(header: readonly string[], ignoreUnknown: boolean): Columns | { problems: string[] } {
  const problems: string[] = [];
  const keys = header.map((raw) => headerKey(raw));
  const hasFirstname = keys.some((key) => FIELD_BY_KEY.get(key) === 'firstname');
  const lastnameKeys = new Set(LASTNAME_BESIDE_FIRSTNAME.map(headerKey));
  const seenKeys = new Set<string>();
  const firstOfField = new Map<ImportedField, string>();
  const ignored: string[] = [];
  const columns = header.map((raw, index): Column => {
    const name = raw.trim();
    const key = keys[index]!;
    if (key === '') {
      problems.push(importMessages.unnamedColumn(index + 1));
      return { header: name, field: null };
    }
    if (seenKeys.has(key)) {
      problems.push(importMessages.repeatedColumn(name));
      return { header: name, field: null };
    }
    seenKeys.add(key);
    if (key === 'password') {
      problems.push(importMessages.passwordColumn);
      return { header: name, field: null };
    }
    const field = FIELD_BY_KEY.get(key) ?? (hasFirstname && lastnameKeys.has(key) ? 'lastname' : undefined);
    if (field === undefined) {
      if (!EXPORT_ONLY.has(key)) {
        if (ignoreUnknown) ignored.push(name);
        else problems.push(importMessages.unknownColumn(name));
      }
      return { header: name, field: null };
    }
    const earlier = firstOfField.get(field);
    if (earlier !== undefined) problems.push(importMessages.columnsMeanOneField(earlier, name, field));
    else firstOfField.set(field, name);
    return { header: name, field };
  });
  return problems.length > 0 ? { problems } : { columns, ignored };
}
