import { elide } from '../../lib/french.js';
import type { Locale } from '../tenants/schemas.js';

/** The footers of a leader's message: why the reader gets it, in the tenant's language. */
export interface MessageWords {
  member: (target: string) => string;
  /** A message to a group and its subgroups: the reader may be a member of a group below it. */
  memberBelow: (target: string) => string;
  participant: (target: string) => string;
  guardian: (firstname: string) => string;
  copy: (target: string) => string;
  replies: (sender: string) => string;
}

export const MESSAGE_WORDS: Record<Locale, MessageWords> = {
  en: {
    member: (target) => `You receive this message as a member of ${target}.`,
    memberBelow: (target) => `You receive this message as a member of ${target} or of one of its groups.`,
    participant: (target) => `You receive this message because you are registered for ${target}.`,
    guardian: (firstname) => `You receive this message as guardian of ${firstname}.`,
    copy: (target) => `This is a copy of your message to ${target}.`,
    replies: (sender) => `Replies go to ${sender}.`,
  },
  de: {
    member: (target) => `Du erhältst diese Nachricht als Mitglied von ${target}.`,
    memberBelow: (target) => `Du erhältst diese Nachricht als Mitglied von ${target} oder einer ihrer Gruppen.`,
    participant: (target) => `Du erhältst diese Nachricht, weil du für ${target} angemeldet bist.`,
    guardian: (firstname) => `Du erhältst diese Nachricht, weil du für ${firstname} erziehungsberechtigt bist.`,
    copy: (target) => `Dies ist eine Kopie deiner Nachricht an ${target}.`,
    replies: (sender) => `Deine Antwort geht an ${sender}.`,
  },
  fr: {
    member: (target) => `Tu reçois ce message en tant que membre ${elide('de', target)}.`,
    memberBelow: (target) => `Tu reçois ce message en tant que membre ${elide('de', target)} ou de l’un de ses groupes.`,
    participant: (target) => `Tu reçois ce message parce que tu es inscrit·e à ${target}.`,
    guardian: (firstname) => `Tu reçois ce message en tant que représentant·e légal·e ${elide('de', firstname)}.`,
    copy: (target) => `Voici une copie du message que tu as envoyé à ${target}.`,
    replies: (sender) => `Ta réponse parvient à ${sender}.`,
  },
};
