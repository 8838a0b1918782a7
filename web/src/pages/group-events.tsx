import { useState } from 'preact/hooks';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment } from '../i18n/index.js';
import { client } from '../session.js';

/** A group's events, upcoming and past; its leaders go from here to the form for a new one. */
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
        <a class="button-link" href={`#/groups/${groupId}/events/new`}>
          {words.newEvent}
        </a>
      )}
    </section>
  );
}
