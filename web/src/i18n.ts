/** The app's words in English and German; the browser's language decides, a switch overrides. */
const words = {
  en: {
    appName: 'groupadmin',
    login: 'Log in',
    username: 'Username',
    password: 'Password',
    loginFailed: 'Wrong username or password.',
    logout: 'Log out',
    profile: 'My profile',
    firstname: 'First name',
    lastname: 'Last name',
    email: 'E-mail',
    city: 'City',
    vegetarian: 'Vegetarian',
    swimmer: 'Can swim',
    save: 'Save',
    saved: 'Saved.',
    changePassword: 'Change password',
    currentPassword: 'Current password',
    newPassword: 'New password',
    confirmPassword: 'Repeat the new password',
    passwordChanged: 'Password changed. Please log in again.',
    tooMany: (seconds: number) => `Too many attempts. Try again in ${seconds} s.`,
    failed: 'Something went wrong. Please try again.',
    language: 'Language',
    memberSince: 'Member since',
  },
  de: {
    appName: 'groupadmin',
    login: 'Anmelden',
    username: 'Benutzername',
    password: 'Passwort',
    loginFailed: 'Benutzername oder Passwort ist falsch.',
    logout: 'Abmelden',
    profile: 'Mein Profil',
    firstname: 'Vorname',
    lastname: 'Nachname',
    email: 'E-Mail',
    city: 'Ort',
    vegetarian: 'Vegetarisch',
    swimmer: 'Kann schwimmen',
    save: 'Speichern',
    saved: 'Gespeichert.',
    changePassword: 'Passwort ändern',
    currentPassword: 'Aktuelles Passwort',
    newPassword: 'Neues Passwort',
    confirmPassword: 'Neues Passwort wiederholen',
    passwordChanged: 'Passwort geändert. Bitte melde dich neu an.',
    tooMany: (seconds: number) => `Zu viele Versuche. Versuche es in ${seconds} s wieder.`,
    failed: 'Etwas ist schiefgegangen. Bitte versuche es noch einmal.',
    language: 'Sprache',
    memberSince: 'Dabei seit',
  },
} as const;

export type Language = keyof typeof words;
export type Words = (typeof words)[Language];
export const LANGUAGES: Language[] = ['en', 'de'];

/** The browser's first language we speak, else English. */
export function browserLanguage(languages: readonly string[] = navigator.languages): Language {
  for (const tag of languages) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'de' || base === 'en') return base;
  }
  return 'en';
}

export const wordsFor = (language: Language): Words => words[language];

/** A date-time in the tenant's time zone, in the reader's language. */
export const formatDate = (iso: string, language: Language, timeZone: string): string =>
  new Intl.DateTimeFormat(language === 'de' ? 'de-CH' : 'en-GB', { dateStyle: 'medium', timeZone }).format(new Date(iso));
