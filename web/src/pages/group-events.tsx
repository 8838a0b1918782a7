import { useState } from 'preact/hooks';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment, zonedToIso } from '../i18n/index.js';
import { client } from '../session.js';

/** A group's events, upcoming and past; its leaders create one here. */
export function GroupEvents({ groupId, canWrite }: { groupId: number; canWrite: boolean }) {
  const app = useApp();
  const { words, language, session } = app;
  // Upcoming: those to come and under way, soonest first; past: those that ended (past events stay reachable).
  const [when, setWhen] = useState<'upcoming' | 'past'>('upcoming');
  const [events] = useLoad(async () => {
    const now = new Date().toISOString();
    // Past: the last year's, newest first (the list comes soonest first).
    const range = when === 'upcoming' ? { from: now } : { from: new Date(Date.now() - 365 * 86_400_000).toISOString(), to: now };
    const list = dataOf(app, await client.events.list({ group_id: groupId, ...range, limit: 50 }))?.data.events ?? null;
    return list && when === 'past' ? list.filter((event) => event.ends_at < now).reverse() : list;
  }, [groupId, when]);
  const [name, setName] = useState('');
  const [startsAt, setStartsAt] = useState('');
  const [endsAt, setEndsAt] = useState('');
  const [capacity, setCapacity] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const create = async (event: Event) => {
    event.preventDefault();
    const moment = (local: string) => zonedToIso(local, session.timeZone);
    const created = answerFor(
      app,
      await client.events.create({ group_id: groupId, name, starts_at: moment(startsAt), ends_at: moment(endsAt), ...(capacity ? { capacity: Number(capacity) } : {}) }),
      setErrors,
    );
    if (created) app.announce(words.eventCreated, `/events/${created.data.event.id}`);
  };
  return (
    <section class="card">
      <h2>{words.events}</h2>
      <div class="tabs" role="group" aria-label={words.events}>
        {(['upcoming', 'past'] as const).map((choice) => (
          <button type="button" class={when === choice ? '' : 'secondary-dark'} aria-pressed={when === choice} onClick={() => setWhen(choice)}>
            {words[choice]}
          </button>
        ))}
      </div>
      {events && events.length > 0 ? (
        <ul class="list">
          {events.map((event) => (
            <li key={event.id}>
              <a href={`#/events/${event.id}`}>{event.name}</a> <span class="muted">{formatMoment(event.starts_at, language, session.timeZone)}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{words.nothing}</p>
      )}
      {canWrite && (
        <form class="inline-form" onSubmit={create} ref={form}>
          <h3>{words.newEvent}</h3>
          <FormErrors errors={errors} shown={['name', 'starts_at', 'ends_at', 'capacity']} />
          <Field label={words.name} name="event_name" required value={name} errors={errors.name} onInput={setName} />
          <Field label={words.inTimeZone(words.startsAt, session.timeZone)} name="starts_at" type="datetime-local" required value={startsAt} errors={errors.starts_at} onInput={setStartsAt} />
          <Field label={words.inTimeZone(words.endsAt, session.timeZone)} name="ends_at" type="datetime-local" required value={endsAt} errors={errors.ends_at} onInput={setEndsAt} />
          <Field label={words.capacity} name="capacity" type="number" min="1" value={capacity} errors={errors.capacity} onInput={setCapacity} />
          <button type="submit">{words.create}</button>
        </form>
      )}
    </section>
  );
}
