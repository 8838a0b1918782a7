import { useState } from 'preact/hooks';
import { Field, FormErrors, useFirstErrorFocus, validationErrors, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessage, translateApiMessages } from '../i18n/api-messages.js';
import { formatNumber, roleTypeLabel, type Words } from '../i18n/index.js';
import { BODY_LIMIT, SUBJECT_LIMIT, messages, type GuardiansChoice, type Message, type MessageBody, type ParticipationState } from '../mail-api.js';
import { client, newKey, troubleOf } from '../session.js';
import { MessageCounts } from './messages.js';

export type Target = { groupId: number } | { eventId: number };

/** The guardians' choices, worded for a group's members or an event's participants. */
const GUARDIANS: readonly [GuardiansChoice, keyof Words, keyof Words][] = [
  ['include', 'guardiansInclude', 'guardiansIncludeParticipants'],
  ['only', 'guardiansOnly', 'guardiansOnlyParticipants'],
  ['none', 'guardiansNone', 'guardiansNoneParticipants'],
];
const STATES: readonly ParticipationState[] = ['accepted', 'pending', 'waitlisted', 'rejected', 'cancelled'];

/**
 * "Write to the group" (its members, with subgroups, some roles) and "write to participants" (an
 * event's participations in some states), each with or without the guardians: a plain-text
 * message, sent after a question, and what became of it (recipients, queued, unreachable, failed).
 * A group's page reads nothing (the group is known since sign-in); an event's reads the event.
 */
export function ComposeMessagePage({ target }: { target: Target }) {
  const app = useApp();
  const { words, language, session } = app;
  const [event] = useLoad(async () => ('eventId' in target ? (dataOf(app, await client.events.get(target.eventId))?.data.event ?? null) : null), [
    'eventId' in target ? target.eventId : 0,
  ]);
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [below, setBelow] = useState(false);
  const [roles, setRoles] = useState<string[]>([]);
  const [states, setStates] = useState<ParticipationState[]>(['accepted']);
  const [guardians, setGuardians] = useState<GuardiansChoice>('include');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [limit, setLimit] = useState<string | null>(null);
  const [sent, setSent] = useState<Message | null>(null);
  const [busy, setBusy] = useState(false);
  // One key per message written: a retry after a lost answer sends it once; a new message gets a new key.
  const [key, setKey] = useState(newKey);
  const form = useFirstErrorFocus(errors);

  const group = 'groupId' in target ? session.access.groups.get(target.groupId) : event ? session.access.groups.get(event.group_id) : undefined;
  if ('eventId' in target && !event) return <p aria-busy="true">…</p>;
  if (!group || !session.access.atLeast(group.id, 'write')) return <p class="card">{words.nothing}</p>;
  const targetName = event ? words.participantsOf(event.name) : below ? words.withSubgroups(group.name) : group.name;
  const back = event ? `#/events/${event.id}` : `#/groups/${group.id}`;

  const send = async (submitted: Event) => {
    submitted.preventDefault();
    // Too long is said beside the field before anything is asked or sent: nothing typed is cut off.
    const tooLong: FieldErrors = {};
    if (subject.trim().length > SUBJECT_LIMIT) tooLong.subject = [`The subject field must not be greater than ${SUBJECT_LIMIT} characters.`];
    if (body.length > BODY_LIMIT) tooLong.body = [`The body field must not be greater than ${BODY_LIMIT} characters.`];
    if (Object.keys(tooLong).length > 0) return setErrors(tooLong);
    if (!confirm(words.confirmSend(subject.trim(), targetName))) return;
    setBusy(true);
    setLimit(null);
    try {
      const to: MessageBody['to'] = event
        ? { event_id: event.id, states, guardians }
        : { group_id: group.id, below, ...(roles.length > 0 ? { role_types: roles } : {}), guardians };
      const result = await messages.send({ subject, body, to }, key);
      if (result.data) {
        setErrors({});
        setSent(result.data.data.message);
        setKey(newKey());
        setSubject('');
        setBody('');
        return app.announce(words.messageSent);
      }
      if (result.response.status === 429) {
        // The sender's hourly messages or the tenant's daily mail: the API's words, and when to try again.
        const answer = result.error as { message?: string; retry_after?: number } | undefined;
        const minutes = Math.max(1, Math.ceil((answer?.retry_after ?? Number(result.response.headers.get('retry-after') ?? 60)) / 60));
        return setLimit(`${translateApiMessage(answer?.message ?? 'Too Many Attempts.', language)} ${words.sendAgainIn(minutes)}`);
      }
      const refused = validationErrors(result.response, result.error);
      if (refused) setErrors(refused);
      else app.report(troubleOf(result.response, result.error));
    } finally {
      setBusy(false);
    }
  };

  const toggle = <T,>(list: T[], value: T, on: boolean): T[] => (on ? [...list, value] : list.filter((item) => item !== value));

  return (
    <>
      <form class="card" ref={form} onSubmit={send} aria-labelledby="compose-title">
        <p class="muted">
          <a href={back}>{event ? event.name : group.name}</a>
        </p>
        <h1 id="compose-title" tabIndex={-1}>
          {event ? words.writeToParticipants : words.writeToGroup}
        </h1>
        <FormErrors errors={errors} shown={['subject', 'body']} />
        <Field label={words.subject} name="subject" required value={subject} errors={errors.subject} onInput={(value) => setSubject(value.replace(/[\r\n]+/g, ' '))} />
        <div class="field">
          <label for="message-body">{words.messageText}</label>
          <textarea
            id="message-body"
            name="body"
            rows={10}
            required
            value={body}
            aria-invalid={errors.body ? 'true' : undefined}
            aria-describedby={`message-body-hint message-body-count${errors.body ? ' message-body-error' : ''}`}
            onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)}
          />
          <span id="message-body-hint" class="muted hint">
            {words.messageTextHint}
          </span>
          <span id="message-body-count" class="muted hint" aria-live="polite">
            {words.charactersUsed(formatNumber(body.length, language), formatNumber(BODY_LIMIT, language))}
          </span>
          {errors.body && (
            <span id="message-body-error" class="error">
              {translateApiMessages(errors.body, language)}
            </span>
          )}
        </div>
        <fieldset class="group-of-fields">
          <legend>{words.whoGetsIt}</legend>
          {event ? (
            <fieldset class="group-of-fields">
              <legend>{words.statesLegend}</legend>
              {STATES.map((state) => (
                <label class="check" key={state}>
                  <input type="checkbox" name="states" value={state} checked={states.includes(state)} onChange={(e) => setStates(toggle(states, state, (e.target as HTMLInputElement).checked))} />
                  {words[state]}
                </label>
              ))}
            </fieldset>
          ) : (
            <>
              <label class="check">
                <input type="checkbox" name="below" checked={below} onChange={(e) => setBelow((e.target as HTMLInputElement).checked)} />
                {words.includeSubgroups}
              </label>
              <fieldset class="group-of-fields" aria-describedby="roles-hint">
                <legend>{words.rolesLegend}</legend>
                <span id="roles-hint" class="muted hint">
                  {words.rolesHint}
                </span>
                {session.roleTypes.map((role) => (
                  <label class="check" key={role.key}>
                    <input type="checkbox" name="role_types" value={role.key} checked={roles.includes(role.key)} onChange={(e) => setRoles(toggle(roles, role.key, (e.target as HTMLInputElement).checked))} />
                    {roleTypeLabel(role, language)}
                  </label>
                ))}
              </fieldset>
            </>
          )}
          <fieldset class="group-of-fields">
            <legend>{words.parentsLegend}</legend>
            {GUARDIANS.map(([choice, ofMembers, ofParticipants]) => (
              <label class="check" key={choice}>
                <input type="radio" name="guardians" value={choice} checked={guardians === choice} onChange={() => setGuardians(choice)} />
                {words[event ? ofParticipants : ofMembers] as string}
              </label>
            ))}
          </fieldset>
        </fieldset>
        {limit && (
          <p class="error" role="alert">
            {limit}
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={busy}>
            {words.sendMessage}
          </button>
        </div>
      </form>
      {sent && (
        <section class="card" aria-labelledby="sent-title">
          <h2 id="sent-title">{sent.subject}</h2>
          <MessageCounts counts={sent.counts} />
          <p>
            <a href={`#/messages/${sent.id}`}>{words.openMessage}</a>
          </p>
        </section>
      )}
    </>
  );
}
