import { useEffect } from 'preact/hooks';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatDate, formatMoment, roleTypeLabel } from '../i18n/index.js';
import { familyAgenda } from '../access.js';

type Agenda = NonNullable<Awaited<ReturnType<typeof familyAgenda>>['data']>['data'];

/**
 * The first page after sign-in: what is next for me and my wards (registered, waiting, open to
 * us), then my groups. One request (the agenda): who "we" are came with the sign-in.
 */
export function HomePage({ agenda: first, onShown }: { agenda: Agenda | null; onShown: () => void }) {
  const app = useApp();
  const { words, language, session } = app;
  // The sign-in read the agenda already; a later visit of the home page reads it again.
  const [loaded] = useLoad(async () => (first ? first : (dataOf(app, await familyAgenda())?.data ?? null)), []);
  useEffect(onShown, []);
  const nameOf = (personId: number) =>
    personId === session.me.id ? words.me : (session.wards.find((ward) => ward.id === personId)?.firstname ?? String(personId));
  const roleOf = (key: string) => {
    const role = session.roleTypes.find((r) => r.key === key);
    return role ? roleTypeLabel(role, language) : key;
  };

  return (
    <>
      <section class="card" aria-labelledby="home-title">
        <h1 id="home-title" tabIndex={-1}>
          {words.nextForUs}
        </h1>
        <p>
          <a href="#/calendar">{words.addToCalendar}</a>
        </p>
        {!loaded ? (
          <p aria-busy="true">…</p>
        ) : loaded.events.length === 0 ? (
          <p class="muted">{words.nothingNext}</p>
        ) : (
          <ul class="agenda">
            {loaded.events.map(({ event, family, may_register: mayRegister }) => (
              <li key={event.id} class="agenda-item">
                <a href={`#/events/${event.id}`} class="agenda-name">
                  {event.name}
                </a>
                <span class="muted">
                  {formatMoment(event.starts_at, language, session.timeZone)}
                  {event.location ? ` · ${event.location}` : ''}
                </span>
                {family.map((entry) => (
                  <span key={entry.participation_id} class={`state state-${entry.state}`}>
                    {nameOf(entry.person_id)}: {words[entry.state]}
                    {entry.waitlist_position !== null && ` (${words.placeOnList(entry.waitlist_position)})`}
                  </span>
                ))}
                {mayRegister.length > 0 && (
                  <a class="button-link" href={`#/events/${event.id}`}>
                    {words.registerNamed(mayRegister.map(nameOf).join(', '))}
                  </a>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section class="card" aria-labelledby="my-groups">
        <h2 id="my-groups">{words.myGroups}</h2>
        {session.memberships.length === 0 ? (
          <p class="muted">{words.nothing}</p>
        ) : (
          <ul class="list">
            {session.memberships.map((m) => (
              <li key={m.id}>
                <a href={`#/groups/${m.group_id}`}>{m.group_name}</a> · {roleOf(m.role_type)} · {words.since} {formatDate(m.start_on, language, 'UTC')}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
