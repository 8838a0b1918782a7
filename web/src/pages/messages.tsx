import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { LinkedText } from '../components/linked-text.js';
import { dataOf, useApp, type App } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessage } from '../i18n/api-messages.js';
import { formatMoment, formatNumber, roleTypeLabel, type Words } from '../i18n/index.js';
import { messages, type Counts, type GuardiansChoice, type Message, type MessageState, type Recipient } from '../mail-api.js';
import { client, troubleOf } from '../session.js';

/** Each state of a recipient in the reader's words. */
export const STATE_WORDS: Record<MessageState, keyof Words> = { queued: 'mailQueued', sent: 'mailSent', failed: 'mailFailed', unreachable: 'mailUnreachable' };

/** The guardians' choices, worded for a group's members or an event's participants. */
export const GUARDIANS: readonly [GuardiansChoice, keyof Words, keyof Words][] = [
  ['include', 'guardiansInclude', 'guardiansIncludeParticipants'],
  ['only', 'guardiansOnly', 'guardiansOnlyParticipants'],
  ['none', 'guardiansNone', 'guardiansNoneParticipants'],
];

/** The guardians choice in the reader's words, for a group's members or an event's participants. */
export function guardiansWords(choice: GuardiansChoice, ofEvent: boolean, words: Words): string {
  const [, ofMembers, ofParticipants] = GUARDIANS.find(([each]) => each === choice)!;
  return words[ofEvent ? ofParticipants : ofMembers] as string;
}

/** The chosen role types in the reader's language (a key the tenant no longer has, as it is). */
export function rolesWords(keys: readonly string[] | null, app: Pick<App, 'words' | 'language' | 'session'>): string {
  if (!keys || keys.length === 0) return app.words.everyRole;
  return keys.map((key) => roleTypeLabel(app.session.roleTypes.find((role) => role.key === key) ?? { key, label: key }, app.language)).join(', ');
}

/** What became of a message: how many it reached, and how. */
export function MessageCounts({ counts }: { counts: Counts }) {
  const { words, language } = useApp();
  const rows: [string, number][] = [
    [words.recipients, counts.recipients],
    [words.mailQueued, counts.queued],
    [words.mailSent, counts.sent],
    [words.mailFailed, counts.failed],
    [words.mailUnreachable, counts.unreachable],
  ];
  return (
    <dl class="facts">
      {rows.map(([label, count]) => (
        <>
          <dt>{label}</dt>
          <dd>{formatNumber(count, language)}</dd>
        </>
      ))}
    </dl>
  );
}

/**
 * Whom a message went to, as the question before sending named it: the group (with subgroups), the
 * roles and the guardians choice; or the event (by name when it could be read), the states and the
 * guardians choice.
 */
function Recipients({ message, eventName }: { message: Message; eventName: string | null }) {
  const app = useApp();
  const { words, session } = app;
  const { to } = message;
  const groupName = 'group_id' in to ? session.access.groups.get(to.group_id)?.name : undefined;
  const [target, chosen, guardians]: [ComponentChildren, string, string] =
    'event_id' in to
      ? [
          <a href={`#/events/${to.event_id}`}>{eventName ?? words.anEvent}</a>,
          words.statesChosen(to.states.map((state) => words[state]).join(', ')),
          guardiansWords(to.guardians, true, words),
        ]
      : [
          groupName ? <a href={`#/groups/${to.group_id}`}>{to.below ? words.withSubgroups(groupName) : groupName}</a> : words.aGroup,
          words.rolesChosen(rolesWords(to.role_types, app)),
          guardiansWords(to.guardians, false, words),
        ];
  return (
    <>
      <span>{target}</span>
      <br />
      <span>{chosen}</span>
      <br />
      <span>{guardians}</span>
    </>
  );
}

const senderName = (message: Message, words: Words) => (message.sender ? `${message.sender.firstname} ${message.sender.lastname}` : words.senderGone);

/**
 * Sent messages, newest first, 50 at a time: a group's, an event's (for who may write to it), or
 * the reader's own. An event's page reads the event too (its name): two reads.
 */
export function MessagesPage({ of }: { of: { groupId?: number; eventId?: number } }) {
  const app = useApp();
  const { words, language, session } = app;
  const [event] = useLoad(async () => (of.eventId ? (dataOf(app, await client.events.get(of.eventId))?.data.event ?? null) : null), [of.eventId]);
  const [pages, setPages] = useState<{ list: Message[]; next: string | null } | null>(null);
  const [first] = useLoad(async () => {
    const answer = dataOf(app, await messages.list({ group_id: of.groupId, event_id: of.eventId }));
    return answer ? { list: answer.data.messages, next: answer.data.next_cursor } : null;
  }, [of.groupId, of.eventId]);
  const shown = pages ?? first;
  const group = of.groupId ? session.access.groups.get(of.groupId) : undefined;
  if (!shown || (of.eventId && !event)) return <p aria-busy="true">…</p>;
  const more = async () => {
    if (!shown.next) return;
    const answer = dataOf(app, await messages.list({ group_id: of.groupId, event_id: of.eventId, cursor: shown.next }));
    if (answer) setPages({ list: [...shown.list, ...answer.data.messages], next: answer.data.next_cursor });
  };
  const compose = event ? `#/events/${event.id}/messages/new` : group ? `#/groups/${group.id}/messages/new` : null;

  return (
    <section class="card" aria-labelledby="messages-title">
      {(event || group) && (
        <p class="muted">
          <a href={event ? `#/events/${event.id}` : `#/groups/${group!.id}`}>{event ? event.name : group!.name}</a>
        </p>
      )}
      <h1 id="messages-title" tabIndex={-1}>
        {of.groupId || of.eventId ? words.sentMessages : words.myMessages}
      </h1>
      {compose && (
        <p>
          <a class="button-link" href={compose}>
            {event ? words.writeToParticipants : words.writeToGroup}
          </a>
        </p>
      )}
      {shown.list.length === 0 ? (
        <p class="muted">{words.noMessages}</p>
      ) : (
        <ul class="list">
          {shown.list.map((message) => (
            <li key={message.id}>
              <a href={`#/messages/${message.id}`}>{message.subject}</a>{' '}
              <span class="muted">
                {formatMoment(message.created_at, language, session.timeZone)} · {senderName(message, words)} · {words.recipients}: {formatNumber(message.counts.recipients, language)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {shown.next && (
        <button type="button" class="secondary-dark" onClick={() => void more()}>
          {words.more}
        </button>
      )}
    </section>
  );
}

/** While any recipient is still queued, the page reads the message again after these pauses (ms), then leaves it to "Refresh". */
const REREAD_AFTER_MS = [3_000, 6_000, 12_000, 24_000, 48_000];

type FullMessage = Message & { recipients: Recipient[] };

/**
 * A sent message: what it said, who sent it when, to whom, and each recipient's state: one read,
 * and one more for an event's name. While mails are queued it reads the message again a few times,
 * further and further apart; "Refresh" reads it on demand (never the event again).
 */
export function MessagePage({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const [first] = useLoad(async () => dataOf(app, await messages.get(id))?.data.message ?? null, [id]);
  const [fresh, setFresh] = useState<FullMessage | null>(null);
  const [reading, setReading] = useState(false);
  const [rereads, setRereads] = useState(0);
  const message = fresh ?? first;
  const eventId = message && 'event_id' in message.to ? message.to.event_id : null;
  const [eventName] = useLoad(async () => {
    if (eventId === null) return null;
    const result = await client.events.get(eventId);
    if (result.data) return result.data.data.event.name;
    // An event the reader no longer sees (or one deleted) is named "an event"; anything else is reported.
    if (result.response.status !== 404 && result.response.status !== 403) app.report(troubleOf(result.response, result.error));
    return null;
  }, [eventId]);
  // Only the latest read shows: a timed re-read and "Refresh" may cross, and an older answer must not win.
  const latestRead = useRef(0);
  const reread = async () => {
    const mine = ++latestRead.current;
    setReading(true);
    try {
      const answer = dataOf(app, await messages.get(id));
      if (answer && mine === latestRead.current) setFresh(answer.data.message);
    } finally {
      if (mine === latestRead.current) setReading(false);
    }
  };
  const queued = message ? message.counts.queued > 0 : false;
  useEffect(() => {
    if (!queued || rereads >= REREAD_AFTER_MS.length) return;
    const timer = setTimeout(() => {
      setRereads((count) => count + 1);
      void reread();
    }, REREAD_AFTER_MS[rereads]);
    return () => clearTimeout(timer);
  }, [queued, rereads]);
  if (!message) return <p aria-busy="true">…</p>;
  return (
    <>
      <section class="card" aria-labelledby="message-title">
        <h1 id="message-title" tabIndex={-1}>
          {message.subject}
        </h1>
        <dl class="facts">
          <dt>{words.sender}</dt>
          <dd>{senderName(message, words)}</dd>
          <dt>{words.sentOn}</dt>
          <dd>{formatMoment(message.created_at, language, session.timeZone)}</dd>
          <dt>{words.recipientsTo}</dt>
          <dd>
            <Recipients message={message} eventName={eventName} />
          </dd>
        </dl>
        <div class="message-body">
          <LinkedText text={message.body} />
        </div>
        <div aria-live="polite">
          <MessageCounts counts={message.counts} />
        </div>
        {queued && rereads < REREAD_AFTER_MS.length && <p class="muted hint">{words.stillQueued}</p>}
        <div class="actions">
          <button type="button" class="secondary-dark" disabled={reading} onClick={() => void reread()}>
            {words.refresh}
          </button>
        </div>
      </section>
      <section class="card">
        <h2 id="recipients-title">{words.recipients}</h2>
        <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="recipients-title">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">{words.name}</th>
                <th scope="col">{words.email}</th>
                <th scope="col">{words.state}</th>
                <th scope="col">{words.refusal}</th>
              </tr>
            </thead>
            <tbody>
              {message.recipients.map((recipient, index) => (
                <tr key={`${recipient.person_id ?? 'erased'}-${index}`}>
                  <td>{recipient.person_id ? <a href={`#/people/${recipient.person_id}`}>{recipient.name}</a> : recipient.name}</td>
                  <td class="email">{recipient.email ?? ''}</td>
                  <td>{words[STATE_WORDS[recipient.state]] as string}</td>
                  <td>{recipient.error ? translateApiMessage(recipient.error, language) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
