import type { Locale } from '../tenants/schemas.js';

/** The footers of a leader's message: why the reader gets it, in the tenant's language. */
export interface MessageWords {
  member: (target: string) => string;
  participant: (target: string) => string;
  guardian: (firstname: string) => string;
  copy: (target: string) => string;
  replies: (sender: string) => string;
}

export const MESSAGE_WORDS: Record<Locale, MessageWords> = {
  en: {
    member: (target) => `You receive this message as a member of ${target}.`,
    participant: (target) => `You receive this message as a participant of ${target}.`,
    guardian: (firstname) => `You receive this message as guardian of ${firstname}.`,
    copy: (target) => `This is a copy of your message to ${target}.`,
    replies: (sender) => `A reply goes to ${sender}.`,
  },
  de: {
    member: (target) => `Sie erhalten diese Nachricht als Mitglied von ${target}.`,
    participant: (target) => `Sie erhalten diese Nachricht als Teilnehmer/in von ${target}.`,
    guardian: (firstname) => `Sie erhalten diese Nachricht als Erziehungsberechtigte/r von ${firstname}.`,
    copy: (target) => `Dies ist eine Kopie Ihrer Nachricht an ${target}.`,
    replies: (sender) => `Eine Antwort geht an ${sender}.`,
  },
  fr: {
    member: (target) => `Vous recevez ce message en tant que membre de ${target}.`,
    participant: (target) => `Vous recevez ce message en tant que participant·e à ${target}.`,
    guardian: (firstname) => `Vous recevez ce message en tant que responsable légal·e de ${firstname}.`,
    copy: (target) => `Ceci est une copie de votre message à ${target}.`,
    replies: (sender) => `Une réponse parvient à ${sender}.`,
  },
};
