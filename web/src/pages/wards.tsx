import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment } from '../i18n/index.js';
import { familyAgenda } from '../access.js';

/** My wards, with what is next for each (one request: the family's agenda; the wards came with the sign-in). */
export function WardsPage() {
  const app = useApp();
  const { words, language, session } = app;
  const [agenda] = useLoad(async () => dataOf(app, await familyAgenda())?.data.events ?? null, []);
  return (
    <section class="card">
      <h1 tabIndex={-1}>{words.wards}</h1>
      {session.wards.length === 0 && <p class="muted">{words.noWards}</p>}
      {session.wards.map((ward) => {
        const entries = (agenda ?? []).flatMap(({ event, family }) => family.filter((f) => f.person_id === ward.id).map((f) => ({ event, ...f })));
        return (
          <article key={ward.id} class="ward">
            <h2>
              <a href={`#/wards/${ward.id}`}>
                {ward.firstname} {ward.lastname}
              </a>
            </h2>
            {agenda === null ? (
              <p aria-busy="true">…</p>
            ) : entries.length > 0 ? (
              <ul class="list" aria-label={`${words.registrations}: ${ward.firstname}`}>
                {entries.map((entry) => (
                  <li key={entry.participation_id}>
                    <a href={`#/events/${entry.event.id}`}>{entry.event.name}</a>{' '}
                    <span class="muted">{formatMoment(entry.event.starts_at, language, session.timeZone)}</span> · {words[entry.state]}
                    {entry.waitlist_position !== null && ` (${words.placeOnList(entry.waitlist_position)})`}
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">{words.nothing}</p>
            )}
          </article>
        );
      })}
    </section>
  );
}
