import { useState } from 'preact/hooks';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessage, translateApiMessages } from '../i18n/api-messages.js';
import { formatMoment } from '../i18n/index.js';
import { client, newKey, troubleOf } from '../session.js';

type FieldErrors = Record<string, string[]>;

/**
 * Registering myself or a ward for an event: notes for the leaders (allergies, medication), and
 * the kitchen's and the lifeguard's answers shown to confirm or correct in the same step (a
 * change is saved to the person first, then the registration is made). Two requests to show it.
 */
export function RegisterPage({ eventId, personId }: { eventId: number; personId: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const [event] = useLoad(async () => dataOf(app, await client.events.get(eventId))?.data.event ?? null, [eventId]);
  const [person] = useLoad(async () => {
    const result = await client.people.get(personId);
    const found = dataOf(app, result)?.data.person;
    return found ? { ...found, etag: result.response.headers.get('etag') ?? undefined } : null;
  }, [personId]);
  const [notes, setNotes] = useState('');
  const [vegetarian, setVegetarian] = useState<boolean | null>(null);
  const [swimmer, setSwimmer] = useState<boolean | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // One key per registration the person asks for: a retry after a lost answer registers once.
  const [idempotencyKey] = useState(newKey);
  if (!event || !person) return <p aria-busy="true">…</p>;
  const isMe = personId === session.personId;
  const name = `${person.firstname} ${person.lastname}`;
  const answers = { is_vegetarian: vegetarian ?? person.is_vegetarian, can_swimm: swimmer ?? person.can_swimm };

  /** Shows a 422's field errors beside their fields, the first scrolled into view; anything else above the button. */
  const refused = (result: { error?: unknown; response: Response }, fields: readonly string[]) => {
    const problems = (result.error as { errors?: FieldErrors } | undefined)?.errors;
    const message = (result.error as { message?: string } | undefined)?.message;
    if (result.response.status === 422 && problems && Object.keys(problems).some((field) => fields.includes(field))) {
      setErrors(problems);
      requestAnimationFrame(() => document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
    } else if (result.response.status < 500 && result.response.status !== 401 && result.response.status !== 429 && message) {
      setRefusal(translateApiMessage(message, language));
    } else {
      app.report(troubleOf(result.response, result.error));
    }
  };

  const submit = async (submitted: Event) => {
    submitted.preventDefault();
    setBusy(true);
    setErrors({});
    setRefusal(null);
    try {
      if (answers.is_vegetarian !== person.is_vegetarian || answers.can_swimm !== person.can_swimm) {
        const saved = isMe ? await client.api.PATCH('/user', { body: answers }) : await client.people.update(personId, answers, person.etag);
        if (!saved.response.ok) return refused(saved, ['is_vegetarian', 'can_swimm']);
      }
      const result = await client.api.POST('/events/{id}/participations', {
        params: { path: { id: eventId } },
        body: { person_id: personId, ...(notes.trim() === '' ? {} : { notes }) },
        headers: { 'Idempotency-Key': idempotencyKey },
      });
      if (!result.data || !('participation' in result.data.data)) return refused(result, ['notes']);
      const { state, waitlist_position: place } = result.data.data.participation;
      const placed = place === null ? words[state] : `${words[state]} (${words.placeOnList(place)})`;
      app.announce(`${person.firstname}: ${placed}`, `/events/${eventId}`);
    } finally {
      setBusy(false);
    }
  };

  const yesNo = (legend: string, field: 'is_vegetarian' | 'can_swimm', value: boolean, set: (value: boolean) => void) => (
    <fieldset class="yes-no" aria-invalid={errors[field] ? 'true' : undefined}>
      <legend>{legend}</legend>
      <label class="check">
        <input type="radio" name={field} checked={value} onChange={() => set(true)} />
        {words.yes}
      </label>
      <label class="check">
        <input type="radio" name={field} checked={!value} onChange={() => set(false)} />
        {words.no}
      </label>
      {errors[field] && <span class="error">{translateApiMessages(errors[field], language)}</span>}
    </fieldset>
  );

  return (
    <form class="card" onSubmit={submit} aria-labelledby="register-title">
      <h1 id="register-title" tabIndex={-1}>
        {words.registerFor(name, event.name)}
      </h1>
      <p class="muted">
        {formatMoment(event.starts_at, language, session.timeZone)}
        {event.location && ` · ${event.location}`}
      </p>
      <label for="register-notes">
        {words.notesForLeaders}
        <textarea
          id="register-notes"
          name="notes"
          rows={3}
          maxLength={2000}
          value={notes}
          aria-invalid={errors.notes ? 'true' : undefined}
          aria-describedby={errors.notes ? 'register-notes-error' : 'register-notes-hint'}
          onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)}
        />
        <span id="register-notes-hint" class="muted">
          {words.notesHint}
        </span>
        {errors.notes && (
          <span id="register-notes-error" class="error">
            {translateApiMessages(errors.notes, language)}
          </span>
        )}
      </label>
      <p class="muted">{words.confirmAnswers(person.firstname)}</p>
      {yesNo(words.vegetarianQuestion, 'is_vegetarian', answers.is_vegetarian, setVegetarian)}
      {yesNo(words.swimmerQuestion, 'can_swimm', answers.can_swimm, setSwimmer)}
      {refusal && (
        <p class="error" role="alert">
          {refusal}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {words.registerNamed(person.firstname)}
        </button>
        <a href={`#/events/${eventId}`}>{words.back}</a>
      </div>
    </form>
  );
}
