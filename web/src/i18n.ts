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
    wards: 'My wards',
    groups: 'Groups',
    noWards: 'No wards.',
    registrations: 'Registrations',
    expand: 'Expand',
    collapse: 'Collapse',
    newSubgroup: 'New subgroup',
    name: 'Name',
    create: 'Create',
    rename: 'Rename',
    moveTo: 'Move below',
    move: 'Move',
    members: 'Members',
    search: 'Search',
    includeSubgroups: 'Include subgroups',
    role: 'Role',
    anyRole: 'Any role',
    more: 'Show more',
    addPerson: 'Add a person',
    endMembership: 'End membership',
    since: 'since',
    events: 'Events',
    newEvent: 'New event',
    startsAt: 'Starts',
    endsAt: 'Ends',
    capacity: 'Places',
    location: 'Location',
    memberships: 'Memberships',
    guardians: 'Guardians',
    participations: 'Participations',
    history: 'History',
    register: 'Register',
    registerWho: 'Register',
    participants: 'Participants',
    state: 'State',
    summary: 'Summary',
    downloadCsv: 'Download CSV',
    accepted: 'Accepted',
    waitlisted: 'Waiting list',
    pending: 'Pending',
    cancelled: 'Cancelled',
    rejected: 'Rejected',
    vegetariansCount: 'Vegetarians',
    nonSwimmers: 'Non-swimmers',
    places: (taken: number, capacity: number | null) => capacity === null ? `${taken} registered` : `${taken} of ${capacity} places taken`,
    birthday: 'Birthday',
    nothing: 'Nothing here yet.',
    back: 'Back',
    registered: 'Registered.',
    actionDone: 'Done.',
    home: 'Home',
    me: 'me',
    cancelRegistration: 'Cancel registration',
    parentGroup: 'Parent group',
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
    wards: 'Meine Kinder',
    groups: 'Gruppen',
    noWards: 'Keine Kinder erfasst.',
    registrations: 'Anmeldungen',
    expand: 'Aufklappen',
    collapse: 'Zuklappen',
    newSubgroup: 'Neue Untergruppe',
    name: 'Name',
    create: 'Erstellen',
    rename: 'Umbenennen',
    moveTo: 'Verschieben unter',
    move: 'Verschieben',
    members: 'Mitglieder',
    search: 'Suchen',
    includeSubgroups: 'Mit Untergruppen',
    role: 'Rolle',
    anyRole: 'Alle Rollen',
    more: 'Mehr anzeigen',
    addPerson: 'Person hinzufügen',
    endMembership: 'Mitgliedschaft beenden',
    since: 'seit',
    events: 'Anlässe',
    newEvent: 'Neuer Anlass',
    startsAt: 'Beginn',
    endsAt: 'Ende',
    capacity: 'Plätze',
    location: 'Ort',
    memberships: 'Mitgliedschaften',
    guardians: 'Erziehungsberechtigte',
    participations: 'Teilnahmen',
    history: 'Verlauf',
    register: 'Anmelden',
    registerWho: 'Anmelden',
    participants: 'Teilnehmende',
    state: 'Status',
    summary: 'Übersicht',
    downloadCsv: 'CSV herunterladen',
    accepted: 'Angenommen',
    waitlisted: 'Warteliste',
    pending: 'Offen',
    cancelled: 'Abgemeldet',
    rejected: 'Abgelehnt',
    vegetariansCount: 'Vegetarisch',
    nonSwimmers: 'Nichtschwimmer',
    places: (taken: number, capacity: number | null) => capacity === null ? `${taken} angemeldet` : `${taken} von ${capacity} Plätzen belegt`,
    birthday: 'Geburtstag',
    nothing: 'Noch nichts da.',
    back: 'Zurück',
    registered: 'Angemeldet.',
    actionDone: 'Erledigt.',
    home: 'Start',
    me: 'mich',
    cancelRegistration: 'Abmelden',
    parentGroup: 'Übergeordnete Gruppe',
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

/** A moment with its time, in the tenant's time zone. */
export const formatMoment = (iso: string, language: Language, timeZone: string): string =>
  new Intl.DateTimeFormat(language === 'de' ? 'de-CH' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso));

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
