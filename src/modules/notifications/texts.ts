import type { ParticipationState } from '../../db/types.js';
import { elide } from '../../lib/french.js';
import type { Locale } from '../tenants/schemas.js';

/** Why a participation mail is written: its registration, a change of its state, a move up the queue, or its event moved. */
export type NewsCause = 'registered' | 'changed' | 'promoted' | 'moved';

/** The words of the participation mails, in every language a tenant can choose. */
export interface NoticeWords {
  state(state: ParticipationState, place: number | null): string;
  subject(cause: NewsCause, firstname: string, event: string, state: string): string;
  intro(cause: NewsCause, firstname: string, event: string): string;
  alsoMoved: string;
  event: string;
  date: string;
  place: string;
  noPlace: string;
  stateLabel: string;
  /** Between a label and its value: French sets a space before the colon. */
  colon: string;
  message: string;
  open: string;
  footerSelf: (event: string) => string;
  footerGuardian: (firstname: string) => string;
}

export const NOTICE_WORDS: Record<Locale, NoticeWords> = {
  en: {
    state: (state, place) =>
      ({
        accepted: 'accepted',
        pending: 'registered, awaiting a decision',
        waitlisted: place === null ? 'on the waiting list' : `on the waiting list, place ${place}`,
        rejected: 'not accepted',
        cancelled: 'cancelled',
      })[state],
    subject: (cause, firstname, event, state) =>
      `${firstname}: ${cause === 'moved' ? 'new date or place' : cause === 'promoted' ? 'moved up from the waiting list' : state} – ${event}`,
    intro: (cause, firstname, event) =>
      ({
        registered: `The registration of ${firstname} for ${event} has been received.`,
        changed: `The registration of ${firstname} for ${event} has changed.`,
        promoted: `A place has become free: ${firstname} moved up from the waiting list and is accepted for ${event}.`,
        moved: `${event} has a new date or place. This is where the registration of ${firstname} stands now.`,
      })[cause],
    alsoMoved: 'The event also has a new date or place.',
    event: 'Event',
    date: 'Date',
    place: 'Place',
    noPlace: 'not given',
    stateLabel: 'State',
    colon: ': ',
    message: 'Message from the organisers:',
    open: 'Open the event',
    footerSelf: (event) => `You receive this mail because you are registered for ${event}.`,
    footerGuardian: (firstname) => `You receive this mail as guardian of ${firstname}.`,
  },
  de: {
    state: (state, place) =>
      ({
        accepted: 'angenommen',
        pending: 'angemeldet, Entscheid ausstehend',
        waitlisted: place === null ? 'auf der Warteliste' : `auf der Warteliste, Platz ${place}`,
        rejected: 'nicht angenommen',
        cancelled: 'abgemeldet',
      })[state],
    subject: (cause, firstname, event, state) =>
      `${firstname}: ${cause === 'moved' ? 'neues Datum oder neuer Ort' : cause === 'promoted' ? 'von der Warteliste nachgerückt' : state} – ${event}`,
    intro: (cause, firstname, event) =>
      ({
        registered: `Die Anmeldung von ${firstname} für ${event} ist eingegangen.`,
        changed: `Die Anmeldung von ${firstname} für ${event} hat sich geändert.`,
        promoted: `Ein Platz ist frei geworden: ${firstname} ist von der Warteliste nachgerückt und für ${event} angenommen.`,
        moved: `${event} hat ein neues Datum oder einen neuen Ort. So steht die Anmeldung von ${firstname} jetzt.`,
      })[cause],
    alsoMoved: 'Der Anlass hat zudem ein neues Datum oder einen neuen Ort.',
    event: 'Anlass',
    date: 'Datum',
    place: 'Ort',
    noPlace: 'nicht angegeben',
    stateLabel: 'Status',
    colon: ': ',
    message: 'Nachricht der Leitung:',
    open: 'Anlass öffnen',
    footerSelf: (event) => `Du erhältst diese E-Mail, weil du für ${event} angemeldet bist.`,
    footerGuardian: (firstname) => `Du erhältst diese E-Mail, weil du für ${firstname} erziehungsberechtigt bist.`,
  },
  fr: {
    state: (state, place) =>
      ({
        accepted: 'accepté·e',
        pending: 'inscrit·e, en attente de décision',
        waitlisted: place === null ? 'sur la liste d’attente' : `sur la liste d’attente, place ${place}`,
        rejected: 'non accepté·e',
        cancelled: 'désinscrit·e',
      })[state],
    subject: (cause, firstname, event, state) =>
      `${firstname} : ${cause === 'moved' ? 'nouvelle date ou nouveau lieu' : cause === 'promoted' ? 'une place s’est libérée' : state} – ${event}`,
    intro: (cause, firstname, event) =>
      ({
        registered: `L’inscription ${elide('de', firstname)} à ${event} a bien été reçue.`,
        changed: `L’inscription ${elide('de', firstname)} à ${event} a changé.`,
        promoted: `Une place s’est libérée : ${firstname} quitte la liste d’attente et est accepté·e pour ${event}.`,
        moved: `${event} a une nouvelle date ou un nouveau lieu. Voici où en est l’inscription ${elide('de', firstname)}.`,
      })[cause],
    alsoMoved: 'L’activité a aussi une nouvelle date ou un nouveau lieu.',
    event: 'Activité',
    date: 'Date',
    place: 'Lieu',
    noPlace: 'non indiqué',
    stateLabel: 'Statut',
    colon: ' : ',
    message: 'Message des responsables :',
    open: 'Ouvrir l’activité',
    footerSelf: (event) => `Tu reçois ce message parce que tu es inscrit·e à ${event}.`,
    footerGuardian: (firstname) => `Tu reçois ce message en tant que représentant·e légal·e ${elide('de', firstname)}.`,
  },
};

/** Per language and zone: its formatter (each costs far more to make than to use). */
const formats = new Map<string, Intl.DateTimeFormat>();

/** The event's span in the language's format and the tenant's zone: "Saturday, 12 July 2027, 09:00 – 17:00". */
export function eventSpan(locale: Locale, timeZone: string, startsAt: Date, endsAt: Date): string {
  const key = `${locale} ${timeZone}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short', timeZone });
    formats.set(key, format);
  }
  return startsAt.getTime() === endsAt.getTime() ? format.format(startsAt) : format.formatRange(startsAt, endsAt);
}
