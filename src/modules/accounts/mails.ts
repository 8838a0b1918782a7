import { elide } from '../../lib/french.js';
import { headerName, renderMail } from '../mail/layout.js';
import type { NewMail } from '../mail/outbox.js';
import type { Locale } from '../tenants/schemas.js';

// The three mails of accounts, in the tenant's language: a reset link, an invitation, and the
// notice to an old address that it was replaced. Every mail names the tenant and why it came; the
// notice never shows the new address (it goes to the address that may no longer be the owner's).

/** The tenant as its mails show it: the name (also the From name of these mails) and the language. */
export interface TenantFacts {
  slug: string;
  name: string;
  locale: Locale;
}

interface Person {
  id: number;
  firstname: string;
  lastname: string;
  email: string;
}

const fullName = (person: { firstname: string; lastname: string }) => `${person.firstname} ${person.lastname}`.trim();

interface Words {
  subject: string;
  heading: string;
  body: string;
  button?: string;
  footer: string;
}

const RESET: Record<Locale, (v: { name: string; tenant: string; username: string }) => Words> = {
  en: (v) => ({
    subject: `A new password for ${v.tenant}`,
    heading: 'Set a new password',
    body: `Hello ${v.name}\n\nA new password was requested for your account at ${v.tenant}. Your username is: ${v.username}\n\nThe link below sets a new password; it works once, for 60 minutes. If you did not ask for it, ignore this mail: your password stays as it is.`,
    button: 'Set a new password',
    footer: `You receive this mail because a new password was requested for your account at ${v.tenant}.`,
  }),
  de: (v) => ({
    subject: `Ein neues Passwort für ${v.tenant}`,
    heading: 'Neues Passwort setzen',
    body: `Hallo ${v.name}\n\nFür dein Konto bei ${v.tenant} wurde ein neues Passwort angefordert. Dein Benutzername ist: ${v.username}\n\nMit dem Link unten setzt du ein neues Passwort; er gilt einmal und 60 Minuten lang. Hast du nichts angefordert, kannst du diese E-Mail ignorieren: dein Passwort bleibt, wie es ist.`,
    button: 'Neues Passwort setzen',
    footer: `Du erhältst diese E-Mail, weil für dein Konto bei ${v.tenant} ein neues Passwort angefordert wurde.`,
  }),
  fr: (v) => ({
    subject: `Un nouveau mot de passe pour ${v.tenant}`,
    heading: 'Choisir un nouveau mot de passe',
    body: `Bonjour ${v.name}\n\nUn nouveau mot de passe a été demandé pour ton accès à ${v.tenant}. Ton nom d’utilisateur est : ${v.username}\n\nLe lien ci-dessous te permet de choisir un nouveau mot de passe ; il est valable une seule fois, pendant 60 minutes. Si tu n’as rien demandé, ignore ce message : ton mot de passe reste inchangé.`,
    button: 'Choisir un nouveau mot de passe',
    footer: `Tu reçois ce message parce qu’un nouveau mot de passe a été demandé pour ton accès à ${v.tenant}.`,
  }),
};

const INVITATION: Record<Locale, (v: { name: string; tenant: string; inviter: string }) => Words> = {
  en: (v) => ({
    subject: `${v.inviter} invites you to ${v.tenant}`,
    heading: `Your invitation to ${v.tenant}`,
    body: `Hello ${v.name}\n\n${v.inviter} invites you to join ${v.tenant}: choose a username and a password, then see your groups, events and registrations.\n\nThe link below works once, for 7 days.`,
    button: 'Accept the invitation',
    footer: `You receive this mail because ${v.inviter} invited you to ${v.tenant}.`,
  }),
  de: (v) => ({
    subject: `${v.inviter} lädt dich zu ${v.tenant} ein`,
    heading: `Deine Einladung zu ${v.tenant}`,
    body: `Hallo ${v.name}\n\n${v.inviter} lädt dich ein, dich bei ${v.tenant} anzumelden: wähle einen Benutzernamen und ein Passwort, dann siehst du deine Gruppen, Anlässe und Anmeldungen.\n\nDer Link unten gilt einmal und 7 Tage lang.`,
    button: 'Einladung annehmen',
    footer: `Du erhältst diese E-Mail, weil ${v.inviter} dich zu ${v.tenant} eingeladen hat.`,
  }),
  fr: (v) => ({
    subject: `${v.inviter} t’invite à rejoindre ${v.tenant}`,
    heading: `Ton invitation à rejoindre ${v.tenant}`,
    body: `Bonjour ${v.name}\n\n${v.inviter} t’invite à rejoindre ${v.tenant} : choisis un nom d’utilisateur et un mot de passe, puis retrouve tes groupes, tes activités et tes inscriptions.\n\nLe lien ci-dessous est valable une seule fois, pendant 7 jours.`,
    button: 'Accepter l’invitation',
    footer: `Tu reçois ce message parce ${elide('que', v.inviter)} t’a invité·e à rejoindre ${v.tenant}.`,
  }),
};

const EMAIL_CHANGED: Record<Locale, (v: { name: string; tenant: string; actor: string | null }) => Words> = {
  en: (v) => ({
    subject: `Your e-mail address at ${v.tenant} was changed`,
    heading: 'Your e-mail address was changed',
    body: `Hello ${v.name}\n\n${v.actor === null ? 'You changed' : `${v.actor} changed`} the e-mail address stored for you at ${v.tenant}. Mail from ${v.tenant} no longer comes to this address.\n\nIf this is not right, please contact an administrator of ${v.tenant}.`,
    footer: `You receive this mail because this address was stored for you at ${v.tenant}.`,
  }),
  de: (v) => ({
    subject: `Deine E-Mail-Adresse bei ${v.tenant} wurde geändert`,
    heading: 'Deine E-Mail-Adresse wurde geändert',
    body: `Hallo ${v.name}\n\n${v.actor === null ? 'Du hast' : `${v.actor} hat`} die E-Mail-Adresse geändert, die bei ${v.tenant} für dich gespeichert ist. E-Mails von ${v.tenant} kommen nicht mehr an diese Adresse.\n\nStimmt das nicht, wende dich bitte an eine Administratorin oder einen Administrator von ${v.tenant}.`,
    footer: `Du erhältst diese E-Mail, weil diese Adresse bei ${v.tenant} für dich gespeichert war.`,
  }),
  fr: (v) => ({
    subject: `Ton adresse e-mail chez ${v.tenant} a été modifiée`,
    heading: 'Ton adresse e-mail a été modifiée',
    body: `Bonjour ${v.name}\n\n${v.actor === null ? 'Tu as modifié' : `${v.actor} a modifié`} l’adresse e-mail enregistrée pour toi chez ${v.tenant}. Les messages ${elide('de', v.tenant)} n’arrivent plus à cette adresse.\n\nSi ce n’est pas normal, contacte une administratrice ou un administrateur ${elide('de', v.tenant)}.`,
    footer: `Tu reçois ce message parce que cette adresse était enregistrée pour toi chez ${v.tenant}.`,
  }),
};

function compose(kind: string, tenant: TenantFacts, to: Person, words: Words, link?: string): NewMail {
  const { text, html } = renderMail({
    locale: tenant.locale,
    tenantName: tenant.name,
    heading: words.heading,
    body: words.body,
    ...(link !== undefined && words.button !== undefined ? { button: { label: words.button, url: link } } : {}),
    footer: words.footer,
  });
  return { kind, userId: to.id, to: { address: to.email, name: fullName(to) }, fromName: headerName(tenant.name), subject: words.subject, text, html };
}

/** The reset mail: the link, and the username (for those who forgot that instead). */
export const resetMail = (tenant: TenantFacts, to: Person & { username: string }, link: string): NewMail =>
  compose('reset', tenant, to, RESET[tenant.locale]({ name: to.firstname, tenant: tenant.name, username: to.username }), link);

export const invitationMail = (tenant: TenantFacts, to: Person, inviter: { firstname: string; lastname: string }, link: string): NewMail =>
  compose('invitation', tenant, to, INVITATION[tenant.locale]({ name: to.firstname, tenant: tenant.name, inviter: fullName(inviter) }), link);

/** To the old address: who changed it (null: the person themself), never the new one. */
export const emailChangedMail = (tenant: TenantFacts, to: Person, actor: { firstname: string; lastname: string } | null): NewMail =>
  compose('email_changed', tenant, to, EMAIL_CHANGED[tenant.locale]({ name: to.firstname, tenant: tenant.name, actor: actor === null ? null : fullName(actor) }));
