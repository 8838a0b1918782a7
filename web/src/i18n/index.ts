import { de } from './de.js';
import { en, type Words } from './en.js';
import { fr } from './fr.js';

export type { Words } from './en.js';

const catalogues = { de, en, fr } satisfies Record<string, Words>;

export type Language = keyof typeof catalogues;
export const LANGUAGES = Object.keys(catalogues) as Language[];

const isLanguage = (value: unknown): value is Language => typeof value === 'string' && Object.hasOwn(catalogues, value);

/** The browser's first language we speak, else English. */
export function browserLanguage(languages: readonly string[] = navigator.languages): Language {
  for (const tag of languages) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return 'en';
}

export const wordsFor = (language: Language): Words => catalogues[language];

/** Only the language is kept in the browser, never anything of the session. */
const LANGUAGE_KEY = 'groupadmin.language';

/** The language chosen with the switch on an earlier visit, if any. */
export function rememberedLanguage(): Language | null {
  // Storage can be switched off (or throw in a private window): the browser's language then decides.
  try {
    const stored = localStorage.getItem(LANGUAGE_KEY);
    return isLanguage(stored) ? stored : null;
  } catch {
    return null;
  }
}

export function rememberLanguage(language: Language): void {
  try {
    localStorage.setItem(LANGUAGE_KEY, language);
  } catch {
    // Not kept: the choice lasts until the page is loaded again.
  }
}

/** The regional formats of dates and numbers: the service's tenants are mostly Swiss clubs. */
export const LOCALES: Record<Language, string> = { de: 'de-CH', en: 'en-GB', fr: 'fr-CH' };

/** A date-time in the tenant's time zone, in the reader's language. */
export const formatDate = (iso: string, language: Language, timeZone: string): string =>
  new Intl.DateTimeFormat(LOCALES[language], { dateStyle: 'medium', timeZone }).format(new Date(iso));

/** A moment with its time, in the tenant's time zone. */
export const formatMoment = (iso: string, language: Language, timeZone: string): string =>
  new Intl.DateTimeFormat(LOCALES[language], { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso));

export const formatNumber = (value: number, language: Language): string => new Intl.NumberFormat(LOCALES[language]).format(value);

/** The role types a new tenant starts with, by key, and their words (the English one is the stored label). */
const DEFAULT_ROLE_TYPES: Record<string, 'roleAdmin' | 'roleLeader' | 'roleAssistant' | 'roleMember'> = { admin: 'roleAdmin', leader: 'roleLeader', assistant: 'roleAssistant', member: 'roleMember' };

/**
 * A role type's label in the reader's language when it is a default one as created; a label the
 * tenant gave (a new role type, or a default one renamed) is shown as stored.
 */
export function roleTypeLabel(role: { key: string; label: string }, language: Language): string {
  const word = Object.hasOwn(DEFAULT_ROLE_TYPES, role.key) ? DEFAULT_ROLE_TYPES[role.key] : undefined;
  if (word === undefined || en[word] !== role.label) return role.label;
  return catalogues[language][word];
}

/** The offset (ms) of `timeZone` from UTC at the moment `utcMs`. */
function offsetMs(utcMs: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(utcMs))
      .map((part) => [part.type, Number(part.value)]),
  );
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) - Math.floor(utcMs / 1000) * 1000;
}

/** A wall-clock time typed in a form ("2026-07-01T09:00") read in the tenant's time zone, as ISO UTC. */
export function zonedToIso(local: string, timeZone: string): string {
  const [date = '', time = '00:00'] = local.split('T');
  const [year, month, day] = date.split('-').map(Number);
  const [hour, minute] = time.split(':').map(Number);
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!);
  // Twice: the offset at the guessed moment may differ from the offset at the answer (a change of summer time).
  const first = wall - offsetMs(wall, timeZone);
  return new Date(wall - offsetMs(first, timeZone)).toISOString();
}

/** A moment (ISO) as the wall-clock time a form shows for it in the tenant's time zone ("2026-07-01T09:00"): the reverse of zonedToIso. */
export function isoToZoned(iso: string, timeZone: string): string {
  const utcMs = new Date(iso).getTime();
  return new Date(utcMs + offsetMs(utcMs, timeZone)).toISOString().slice(0, 16);
}
