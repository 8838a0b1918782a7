import { useEffect, useRef, useState } from 'preact/hooks';
import { Field, FormErrors, useFirstErrorFocus, validationErrors, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessage, translateApiMessages } from '../i18n/api-messages.js';
import { formatNumber, roleTypeLabel } from '../i18n/index.js';
import { BODY_LIMIT, SUBJECT_LIMIT, messages, type GuardiansChoice, type MessageBody, type ParticipationState } from '../mail-api.js';
import { client, newKey, troubleOf } from '../session.js';
import { GUARDIANS, guardiansWords, rolesWords } from './messages.js';

export type Target = { groupId: number } | { eventId: number };

const STATES: readonly ParticipationState[] = ['accepted', 'pending', 'waitlisted', 'rejected', 'cancelled'];

/** A text's length as the API counts it: in Unicode code points (an emoji is one). */
const lengthOf = (text: string) => [...text].length;

/** How many the selection holds; `exact` is false when people holding several of the roles may be counted more than once. */
type Selected = { count: number; exact: boolean };

/**
 * "Write to the group" (its members, with subgroups, some roles) and "write to participants" (an
 * event's participations in some states), each with or without the guardians: a plain-text
 * message, sent after a question that names exactly who gets it, then the message's own page.
 * A group's page reads nothing (the group is known since sign-in); an event's reads the event.
 * Sending first counts the selection (a members total per chosen role, or the event's summary), so
 * that a message to nobody is never sent and never counts against the sender's hourly limit.
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
  const [nobody, setNobody] = useState<{ text: string } | null>(null);
  const [limit, setLimit] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // One key per try: a retry after a lost answer sends once. The service keeps a refusal (422, 429)
  // under its key too, so after one the next try, edited or later, gets a new key.
  const [key, setKey] = useState(newKey);
  const form = useFirstErrorFocus(errors);
  const nobodyRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!nobody) return;
    nobodyRef.current?.scrollIntoView({ block: 'center' });
    nobodyRef.current?.focus({ preventScroll: true });
  }, [nobody]);

  const group = 'groupId' in target ? session.access.groups.get(target.groupId) : event ? session.access.groups.get(event.group_id) : undefined;
  if ('eventId' in target && !event) return <p aria-busy="true">…</p>;
  if (!group || !session.access.atLeast(group.id, 'write')) return <p class="card">{words.nothing}</p>;
  const back = event ? `#/events/${event.id}` : `#/groups/${group.id}`;

  /** Members of the group (per chosen role: the API filters one role type at a time), or the event's participations in the states. */
  const countSelected = async (): Promise<Selected | null> => {
    if (event) {
      if (states.length === 0) return { count: 0, exact: true };
      const summary = dataOf(app, await client.events.summary(event.id))?.data.summary;
      if (!summary) return null;
      // The summary's `accepted` counts participants only; helpers and leaders are accepted too.
      const inState = { ...summary, accepted: summary.accepted + summary.helpers + summary.leaders };
      return { count: states.reduce((sum, state) => sum + inState[state], 0), exact: true };
    }
    const answers = await Promise.all(
      (roles.length > 0 ? roles : [undefined]).map(async (role) =>
        dataOf(app, await client.groups.members(group.id, { below, limit: 1, ...(role === undefined ? {} : { role_type: role }) })),
      ),
    );
    const totals = answers.map((answer) => answer?.data.total);
    if (totals.some((total) => total === undefined)) return null;
    // The sender is never a recipient: where the selection holds them, they are not counted.
    const counts = (totals as number[]).map((total, index) => Math.max(0, total - (holdsOwnMembership(roles[index]) ? 1 : 0)));
    return { count: counts.reduce((sum, total) => sum + total, 0), exact: counts.filter((total) => total > 0).length <= 1 };
  };

  /** Whether the sender has a membership active today in the selection (of `role`, or of any role). */
  const holdsOwnMembership = (role: string | undefined): boolean => {
    const { groups } = session.access;
    const inSelection = (groupId: number): boolean => {
      if (!below) return groupId === group.id;
      for (let at = groups.get(groupId); at; at = at.parent_id === null ? undefined : groups.get(at.parent_id)) if (at.id === group.id) return true;
      return false;
    };
    return session.memberships.some(
      (m) => m.start_on <= session.today && (m.end_on === null || m.end_on >= session.today) && (role === undefined || m.role_type === role) && inSelection(m.group_id),
    );
  };

  /** Who gets it, one line each, as the question before sending names it. */
  const whoGetsIt = (selected: Selected) => {
    const count = formatNumber(selected.count, language);
    const lines = event
      ? [words.toTarget(words.participantsOf(event.name)), words.statesChosen(states.map((state) => words[state]).join(', ')), guardiansWords(guardians, true, words)]
      : [words.toTarget(below ? words.withSubgroups(group.name) : group.name), words.rolesChosen(rolesWords(roles, app)), guardiansWords(guardians, false, words)];
    if (selected.exact) lines.push(event ? words.participantsSelected(selected.count, count) : words.membersSelected(selected.count, count));
    return lines.join('\n');
  };

  const send = async (submitted: Event) => {
    submitted.preventDefault();
    if (busy) return;
    // Said beside the field before anything is asked or sent, as the API would; nothing typed is cut off.
    const trimmed = subject.trim();
    const refused: FieldErrors = {};
    if (trimmed === '') refused.subject = ['The subject field is required.'];
    else if (lengthOf(trimmed) > SUBJECT_LIMIT) refused.subject = [`The subject field must not be greater than ${SUBJECT_LIMIT} characters.`];
    if (body.trim() === '') refused.body = ['The body field is required.'];
    else if (lengthOf(body) > BODY_LIMIT) refused.body = [`The body field must not be greater than ${BODY_LIMIT} characters.`];
    setNobody(null);
    setErrors(refused);
    if (Object.keys(refused).length > 0) return;
    setBusy(true);
    setLimit(null);
    try {
      const selected = await countSelected();
      if (!selected) return;
      if (selected.count === 0) return setNobody({ text: event ? words.nobodyInEvent : words.nobodyInGroup });
      if (!confirm(words.confirmSend(trimmed, whoGetsIt(selected)))) return;
      const to: MessageBody['to'] = event
        ? { event_id: event.id, states, guardians }
        : { group_id: group.id, below, ...(roles.length > 0 ? { role_types: roles } : {}), guardians };
      const result = await messages.send({ subject: trimmed, body, to }, key);
      // The message's own page, where its states change as the mails go out: no form left to send twice.
      if (result.data) return app.announce(words.messageSent, `/messages/${result.data.data.message.id}`);
      // A refusal (422, 429) is kept under its key and nothing was sent: the next try needs a new key.
      // Any other trouble (a lost answer, 409 while the first try still runs, 5xx) keeps the key, so a
      // second press can never send the message twice.
      if (result.response.status === 422 || result.response.status === 429) setKey(newKey());
      if (result.response.status === 429) {
        // The sender's hourly messages or the tenant's daily mail: the API's words, and when to try again.
        const answer = result.error as { message?: string; retry_after?: number } | undefined;
        const minutes = Math.max(1, Math.ceil((answer?.retry_after ?? Number(result.response.headers.get('retry-after') ?? 60)) / 60));
        return setLimit(`${translateApiMessage(answer?.message ?? 'Too Many Attempts.', language)} ${words.sendAgainIn(minutes)}`);
      }
      const invalid = validationErrors(result.response, result.error);
      if (invalid) setErrors(invalid);
      else app.report(troubleOf(result.response, result.error));
    } catch {
      // No answer at all (the network): said, and the key kept for the next press.
      app.report({ kind: 'failed', status: 0 });
    } finally {
      setBusy(false);
    }
  };

  const toggle = <T,>(list: T[], value: T, on: boolean): T[] => (on ? [...list, value] : list.filter((item) => item !== value));

  return (
    <>
      <form class="card" ref={form} onSubmit={send} aria-labelledby="compose-title" noValidate>
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
            {words.charactersUsed(formatNumber(lengthOf(body), language), formatNumber(BODY_LIMIT, language))}
          </span>
          {errors.body && (
            <span id="message-body-error" class="error">
              {translateApiMessages(errors.body, language)}
            </span>
          )}
        </div>
        <fieldset class="group-of-fields" aria-describedby={nobody ? 'who-gets-it-error' : undefined}>
          <legend>{words.whoGetsIt}</legend>
          {nobody && (
            <p id="who-gets-it-error" class="error" ref={nobodyRef} tabIndex={-1}>
              {nobody.text}
            </p>
          )}
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
    </>
  );
}
