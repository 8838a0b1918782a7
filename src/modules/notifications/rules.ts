import type { ParticipationState, TenantDb } from '../../db/types.js';
import { toApiTimestamp } from '../../lib/time.js';
import { headerName, renderMail } from '../mail/layout.js';
import { queueMails, type NewMail } from '../mail/outbox.js';
import { appLink, type MailHub } from '../mail/settings.js';
import type { Letterhead } from './letterhead.js';
import { addresseesOf, type Addressee, type Contact } from './queries.js';
import { eventSpan, NOTICE_WORDS, type NewsCause } from './texts.js';

// The mails the service writes on its own about participations (docs/api/messages-and-notifications.md):
// to the person and each guardian with an address that is not failing, in the tenant's language,
// written in the transaction of the change and sent by the delivery worker after the commit.

/** What a request hands the code that writes notifications: the mail of this process and the tenant. */
export interface Notifier {
  hub: MailHub;
  letterhead: Letterhead;
}

/** After the commit: the worker of this instance sends at once what the change queued. */
export const wakeAfterCommit = (notifier: Notifier, queued: number): void => {
  if (queued > 0) notifier.hub.wake(notifier.letterhead.slug);
};

/** One participation to tell about, as it is after the change. */
export interface ParticipationNews {
  participationId: number;
  personId: number;
  state: ParticipationState;
  waitlistPosition: number | null;
  cause: NewsCause;
  /** The event moved in the same change (only with another cause). */
  alsoMoved?: boolean;
}

/** What a notification shows of the event. */
export interface EventFacts {
  id: number;
  name: string;
  location: string | null;
  starts_at: string | Date;
  ends_at: string | Date;
}

export { addresseesOf, type Addressee, type Contact } from './queries.js';
export type { NewsCause } from './texts.js';
export { createTenantLetterheads, type Letterhead, type TenantLetterheads } from './letterhead.js';

/**
 * The mails of `news`: per participation one to the person (with an address) and one to each
 * guardian with an address, each address once, none to a failing address. `message` (a manager's
 * words of a bulk change, such as calling an event off) is quoted in each.
 */
export function participationMails(notifier: Notifier, event: EventFacts, news: readonly ParticipationNews[], addressees: ReadonlyMap<number, Addressee>, message?: string | null): NewMail[] {
  const { letterhead, hub } = notifier;
  const words = NOTICE_WORDS[letterhead.locale];
  const span = eventSpan(letterhead.locale, letterhead.timeZone, new Date(toApiTimestamp(event.starts_at)), new Date(toApiTimestamp(event.ends_at)));
  // The event's page: the family's registrations there, after a sign-in if needed.
  const eventUrl = appLink(hub.config, letterhead.slug, `/events/${event.id}`);
  const fromName = headerName(letterhead.name);
  const quoted = message === undefined || message === null || message.trim() === '' ? null : message;
  const mails: NewMail[] = [];
  for (const item of news) {
    const person = addressees.get(item.personId);
    // Erased since the change was read: no one left to tell.
    if (!person) continue;
    const state = words.state(item.state, item.waitlistPosition);
    const subject = words.subject(item.cause, person.firstname, event.name, state);
    const facts = [
      [words.event, event.name],
      [words.date, span],
      [words.place, event.location ?? words.noPlace],
      [words.stateLabel, state],
    ]
      .map(([label, value]) => `${label}${words.colon}${value}`)
      .join('\n');
    const paragraphs = [words.intro(item.cause, person.firstname, event.name), ...(item.alsoMoved ? [words.alsoMoved] : []), facts];
    if (quoted !== null) paragraphs.push(words.message, quoted);
    const body = paragraphs.join('\n\n');
    const reached = new Set<string>();
    const write = (to: Contact, footer: string) => {
      if (to.email === null || to.failing) return;
      const address = to.email.toLowerCase();
      if (reached.has(address)) return;
      reached.add(address);
      const { text, html } = renderMail({ locale: letterhead.locale, tenantName: letterhead.name, heading: subject, body, button: { label: words.open, url: eventUrl }, footer });
      mails.push({ kind: 'participation', userId: to.id, to: { address: to.email, name: `${to.firstname} ${to.lastname}` }, fromName, subject, text, html });
    };
    write(person, words.footerSelf(event.name));
    for (const guardian of person.guardians) write(guardian, words.footerGuardian(person.firstname));
  }
  return mails;
}

/**
 * Writes the mails of `news` to the outbox, inside the change's transaction; `addressees` when the
 * caller read them already (before taking a lock). Returns how many mails it queued.
 */
export async function queueParticipationNews(
  trx: TenantDb,
  notifier: Notifier,
  event: EventFacts,
  news: readonly ParticipationNews[],
  options: { message?: string | null; addressees?: ReadonlyMap<number, Addressee> } = {},
): Promise<number> {
  if (news.length === 0) return 0;
  const addressees = options.addressees ?? (await addresseesOf(trx, news.map((item) => item.personId)));
  const mails = participationMails(notifier, event, news, addressees, options.message);
  await queueMails(trx, notifier.hub, mails);
  return mails.length;
}
