import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { client } from '../session.js';
import { EventLink } from './event-name.js';

/** My wards and their registrations. */
export function WardsPage() {
  const app = useApp();
  const { words } = app;
  const [wards] = useLoad(async () => {
    const list = dataOf(app, await client.people.wards())?.data.wards;
    if (!list) return null;
    // One call per ward: a family has a handful.
    return Promise.all(
      list.map(async (ward) => ({ ward, participations: dataOf(app, await client.participations.ofPerson(ward.id, { limit: 50 }))?.data.participations ?? [] })),
    );
  }, []);
  if (!wards) return <p aria-busy="true">…</p>;
  return (
    <section class="card">
      <h1>{words.wards}</h1>
      {wards.length === 0 && <p class="muted">{words.noWards}</p>}
      {wards.map(({ ward, participations }) => (
        <article key={ward.id} class="ward">
          <h2>
            <a href={`#/people/${ward.id}`}>
              {ward.firstname} {ward.lastname}
            </a>
          </h2>
          {participations.length > 0 ? (
            <ul class="list" aria-label={`${words.registrations}: ${ward.firstname}`}>
              {participations.map((p) => (
                <li key={p.id}>
                  <EventLink id={p.event_id} /> · {words[p.state]}
                  {p.waitlist_position !== null && ` (${p.waitlist_position})`}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">{words.nothing}</p>
          )}
        </article>
      ))}
    </section>
  );
}
