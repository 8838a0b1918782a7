import type { Addressee, Contact } from '../notifications/rules.js';
import type { Day } from '../../lib/time.js';

/** How a message reaches the members' families (docs/api/messages-and-notifications.md). */
export type GuardiansMode = 'include' | 'only' | 'none';

/** One recipient of a message as it is resolved when the message is sent. */
export interface Recipient {
  person: Contact;
  /** For a guardian: the member they receive it for. */
  wardFirstname: string | null;
  /** queued: a mail goes out; failed: the address is failing; unreachable: no address at all. */
  state: 'queued' | 'failed' | 'unreachable';
}

/** Under 18 on `today`: a birthday after today minus 18 years; an unknown birthday counts as adult. */
export function isMinor(birthday: string | null, today: Day): boolean {
  if (birthday === null) return false;
  const adultBorn = `${String(Number(today.slice(0, 4)) - 18).padStart(4, '0')}${today.slice(4)}`;
  return birthday > adultBorn;
}

/**
 * The recipients of a message to `members`, each address once (case-insensitive) and each person
 * once, never the sender (neither their id nor their address). `include`: every member with an
 * address, and for a member without one or under 18, their guardians with an address; `only`: the
 * guardians alone; `none`: the members alone. A member whom nothing reaches (neither an address
 * nor a guardian with one) is `unreachable`; a failing address is `failed` and gets no mail.
 */
export function resolveRecipients(
  members: readonly Addressee[],
  mode: GuardiansMode,
  today: Day,
  sender: { id: number; email: string | null },
): Recipient[] {
  const recipients: Recipient[] = [];
  const addresses = new Set<string>();
  const people = new Set<number>();
  const senderAddress = sender.email?.toLowerCase() ?? null;
  const add = (person: Contact, wardFirstname: string | null) => {
    if (person.id === sender.id || people.has(person.id)) return;
    if (person.email === null) {
      people.add(person.id);
      recipients.push({ person, wardFirstname, state: 'unreachable' });
      return;
    }
    const address = person.email.toLowerCase();
    if (address === senderAddress || addresses.has(address)) return;
    addresses.add(address);
    people.add(person.id);
    recipients.push({ person, wardFirstname, state: person.failing ? 'failed' : 'queued' });
  };
  for (const member of members) {
    const guardians = member.guardians.filter((guardian) => guardian.email !== null);
    const wantsGuardians = mode === 'only' || (mode === 'include' && (member.email === null || isMinor(member.birthday, today)));
    const reachesMember = mode !== 'only' && member.email !== null;
    if (reachesMember) add(member, null);
    if (wantsGuardians) for (const guardian of guardians) add(guardian, member.firstname);
    // Neither an address nor a guardian with one (with `none`, no address): listed, so the sender
    // sees whom the message missed.
    if (member.email === null && (guardians.length === 0 || mode === 'none')) add(member, null);
  }
  return recipients;
}
